#!/usr/bin/env bash
# watch-pods-e2e.sh - `make e2e-demo-watch`: the demo stops at once on a pod that cannot start, with
# its reason and its last log lines, instead of waiting for a timeout that says nothing.
#
# On the running local cluster (KUBECONFIG), in a namespace of its own: a Deployment whose JVM exits
# at once (a main class that does not exist), one with an image nobody has, and a healthy one. Each
# runs under demo/lib.sh's watch_pods with a rollout wait of ROLLOUT_TIMEOUT s. "At once" is timed
# from the pod's sandbox (its PodReadyToStartContainers turning True), not from the rollout's start:
# what the watch answers for begins there, and on a loaded host a sandbox can take longer than the
# whole check allows (CI once saw 122 s in which the crashing pod never ran; what held it back was
# not recorded, which is why a case that ran long now prints the cluster's state).
# Ends with "N passed, N failed".
# Set by the Makefile: REPO, KUBECTL.
set -euo pipefail
E2E_NAME=watch-pods-e2e
source "$REPO/charts/scripts/e2e-lib.sh"
NS=danki-watch-e2e
ROLLOUT_TIMEOUT=300
# the watch must stop within this many seconds of the pod's sandbox (it stops in 3 to 9 s)
AT_ONCE=60
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
# its exit code, its seconds in all, and its seconds from the pod's sandbox to its end ("none" when
# the pod never had one) are left in $OUT/NAME.{rc,s,from-sandbox}, its stderr in $OUT/NAME.err.
watched() {
  local name=$1 rc=0 t0=$SECONDS sandbox
  (
    # shellcheck source=demo/lib.sh
    source "$REPO/demo/lib.sh"
    CLUSTER_DIR=$(dirname "$KUBECONFIG")
    watch_pods "$NS" "the rollout of $name" "$K" -n "$NS" rollout status "deploy/$name" --timeout="${ROLLOUT_TIMEOUT}s"
  ) >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
  local ended; ended=$(date +%s)
  echo "$rc" >"$OUT/$name.rc"
  echo $((SECONDS - t0)) >"$OUT/$name.s"
  sandbox=$(sandbox_since "$name")
  if [[ -n $sandbox ]]; then echo $((ended - sandbox)) >"$OUT/$name.from-sandbox"; else echo none >"$OUT/$name.from-sandbox"; fi
  sed 's/^/     | /' "$OUT/$name.err"
  at_once "$name" || cluster_state "$name"
}

# sandbox_since NAME: when the sandbox of Deployment NAME's pod turned ready (Unix seconds, the API
# server's clock, which is this host's), or nothing when it has none.
sandbox_since() {
  local status at
  # jsonpath prints no newline, so read ends at EOF (status 1) with both set
  read -r status at < <(kc -n "$NS" get pods -l "app=$1" -o jsonpath='{.items[0].status.conditions[?(@.type=="PodReadyToStartContainers")].status} {.items[0].status.conditions[?(@.type=="PodReadyToStartContainers")].lastTransitionTime}' 2>/dev/null) || true
  # always 0: the caller runs under errexit, and a pod without a sandbox is an answer, not an error
  if [[ $status == True && -n $at ]]; then date -d "$at" +%s; fi
}

# at_once NAME: the wait of NAME ended within AT_ONCE s of its pod's sandbox
at_once() { [[ $(<"$OUT/$1.from-sandbox") != none ]] && (($(<"$OUT/$1.from-sandbox") < AT_ONCE)); }

# cluster_state NAME: when a case was not stopped at once, what the cluster said meanwhile: the pods
# of NAME with their container states, the namespace's Events, the nodes, and the net agent's and
# kubelets' log lines of the pod (a slow watch is otherwise a timeout that says nothing, the very
# thing the demo's watch is for).
cluster_state() {
  echo "     the cluster while $1 waited:"
  {
    kc -n "$NS" get pods -l "app=$1" -o wide
    kc -n "$NS" get pods -l "app=$1" -o jsonpath='{range .items[*]}{.metadata.name}{" conditions="}{.status.conditions}{"\n  containers="}{.status.containerStatuses}{"\n"}{end}'
    kc -n "$NS" get events --sort-by=.lastTimestamp
    kc get nodes -o wide
    # the local cluster's own logs of the pod: the net agent (which a sandbox waits for) and kubelets
    local logs; logs=$(dirname "$KUBECONFIG")/logs
    grep -h "pod=\"$1-" "$logs/net-agent.log" 2>/dev/null | tail -n 5
    grep -h "^E.*$NS/$1-\|^E.*${1}-[a-z0-9]*-[a-z0-9]*_$NS" "$logs"/n*-kubelet.log 2>/dev/null | tail -n 10 | cut -c1-400
  } 2>&1 | sed 's/^/     # /'
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
check "... within $AT_ONCE s of its sandbox, not at the ${ROLLOUT_TIMEOUT} s timeout ($(<"$OUT/crashing.from-sandbox") s; $(<"$OUT/crashing.s") s in all)" at_once crashing
check "... naming the reason" says crashing CrashLoopBackOff
check "... and the container's last exit code" says crashing "CrashLoopBackOff: exit 1"
check "... and its last log lines" says crashing "boom.Marker"

deployment no-image danki/no-such-image:dev
watched no-image
gone no-image
check "a pod without its image stops the wait (exit $(<"$OUT/no-image.rc"))" test "$(<"$OUT/no-image.rc")" -ne 0
check "... within $AT_ONCE s of its sandbox ($(<"$OUT/no-image.from-sandbox") s; $(<"$OUT/no-image.s") s in all)" at_once no-image
check "... naming the reason" grep -Eq "ErrImagePull|ImagePullBackOff" "$OUT/no-image.err"
check "... and the registry's answer" grep -q "danki/no-such-image:dev: not found" "$OUT/no-image.err"

deployment healthy danki/http-status:dev
watched healthy
check "a healthy rollout passes (exit $(<"$OUT/healthy.rc"))" test "$(<"$OUT/healthy.rc")" -eq 0

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
