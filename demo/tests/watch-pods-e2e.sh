#!/usr/bin/env bash
# watch-pods-e2e.sh - `make e2e-demo-watch`: the demo stops at once on a pod that cannot start, with
# its reason and its last log lines, instead of waiting for a timeout that says nothing.
#
# On the running local cluster (KUBECONFIG), in a namespace of its own: a Deployment whose JVM exits
# at once (a main class that does not exist), one with an image nobody has, and a healthy one. Each
# runs under demo/lib.sh's watch_pods with a 120 s rollout wait. Ends with "N passed, N failed".
# Set by the Makefile: REPO, KUBECTL.
set -euo pipefail
E2E_NAME=watch-pods-e2e
source "$REPO/charts/scripts/e2e-lib.sh"
NS=danki-watch-e2e
OUT=$(mktemp -d)
trap 'kc delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT

# deployment NAME IMAGE [COMMAND...]: one replica of IMAGE, with COMMAND instead of its entrypoint;
# Ready once it listens on 8080 (without a probe a container that lives for a moment counts as Ready).
deployment() {
  local name=$1 image=$2 command=""; shift 2
  (($#)) && command="command: [$(printf '"%s",' "$@" | sed 's/,$//')]"
  kc -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name}
spec:
  replicas: 1
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: $image
          $command
          resources: {requests: {cpu: 10m}}
          readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
YAML
}

# watched NAME: runs the rollout wait of Deployment NAME under watch_pods, in a subshell (die exits);
# its exit code, its seconds and its stderr are left in $OUT/NAME.{rc,s,err}.
watched() {
  local name=$1 rc=0 t0=$SECONDS
  (
    # shellcheck source=demo/lib.sh
    source "$REPO/demo/lib.sh"
    CLUSTER_DIR=$(dirname "$KUBECONFIG")
    watch_pods "$NS" "the rollout of $name" "$K" -n "$NS" rollout status "deploy/$name" --timeout=120s
  ) >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
  echo "$rc" >"$OUT/$name.rc"
  echo $((SECONDS - t0)) >"$OUT/$name.s"
  sed 's/^/     | /' "$OUT/$name.err"
}
says() { grep -q -- "$2" "$OUT/$1.err"; } # says NAME TEXT: the watched run's stderr contains TEXT

# gone NAME: deletes Deployment NAME and waits for its pods, so the next case's watch sees only its own.
gone() {
  kc -n "$NS" delete deploy "$1" --wait=true >/dev/null
  wait_for 60 "the pods of $1 to go" bash -c "[[ -z \$('$KUBECTL' -n '$NS' get pods -l app=$1 -o name) ]]" ||
    die "the pods of $1 did not go"
}

wait_for 60 "an earlier run's namespace to go" bash -c "! '$KUBECTL' get namespace '$NS'" || die "namespace $NS still there"
kc create namespace "$NS" >/dev/null

deployment crashing danki/sample-service:dev java boom.Marker
watched crashing
gone crashing
check "a crash-looping pod stops the wait (exit $(<"$OUT/crashing.rc"))" test "$(<"$OUT/crashing.rc")" -ne 0
check "... within 60 s, not at the 120 s timeout ($(<"$OUT/crashing.s") s)" test "$(<"$OUT/crashing.s")" -lt 60
check "... naming the reason" says crashing CrashLoopBackOff
check "... and the container's last exit code" says crashing "exit 1"
check "... and its last log lines" says crashing "boom.Marker"

deployment no-image danki/no-such-image:dev
watched no-image
gone no-image
check "a pod without its image stops the wait (exit $(<"$OUT/no-image.rc"))" test "$(<"$OUT/no-image.rc")" -ne 0
check "... within 60 s ($(<"$OUT/no-image.s") s)" test "$(<"$OUT/no-image.s")" -lt 60
check "... naming the reason" grep -Eq "ErrImagePull|ImagePullBackOff" "$OUT/no-image.err"
check "... and the registry's answer" grep -q "danki/no-such-image:dev: not found" "$OUT/no-image.err"

deployment healthy danki/http-status:dev
watched healthy
check "a healthy rollout passes (exit $(<"$OUT/healthy.rc"))" test "$(<"$OUT/healthy.rc")" -eq 0

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
