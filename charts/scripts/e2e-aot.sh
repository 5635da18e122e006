#!/usr/bin/env bash
# Cluster test of the JDK AOT cache (issue 29, docs/aot-cache.md) on the running local cluster
# (make cluster-up), as the chart installs it (aotCache.enabled, runner.enabled, storage class
# danki-local). Answers: does an opted-in Deployment get a cache trained on its warm-up plan, do its
# next pods start with it and say so, does a pod whose JVM refuses it say so and get it retrained,
# can no pod change what the next pods map, and does an old JVM get a clear Warning and nothing else?
#
# One helm 3 install in namespaces of its own (danki-aot; apps in danki-aot-app), deleted at the end:
#   1. Training: `exam` (the sample service on JDK 25, 1 replica, danki.dev/aot-cache: enabled) gets an
#      AotCache that turns Ready with a SHA-256 and a size; its claim is Bound; the training and
#      sealing pods are gone; an AotCacheTrained Event.
#   2. Used: a scale-up to 3. Each new pod carries the cache's digest, its WarmupRun says `used`, an
#      AotCacheUsed Event, and its warm-up had danki's floor, the same as a JVM without the cache gets
#      (300 requests: since the throughput rule a cached JVM needs no floor of its own). Its
#      JVM container mounts only the pod's copy, read-only; the claim is mounted read-only, by danki's
#      check container only; the option went to JDK_JAVA_OPTIONS, so the image's
#      own JAVA_TOOL_OPTIONS stays.
#   3. Rejected: the template's JVM options change (-XX:-UseCompressedOops, which the cache was not made
#      with). The new pods get the old cache, their JVM refuses it, and their runs say `rejected (...)`
#      with an AotCacheRejected Event and the same floor; the cache is retrained (a new digest), and the
#      next pod uses it.
#   4. Read-only: a pod that mounts the claim read-only cannot write it; the cache file is 0444.
#      A pod that could write it (the claim mounted read-write, as its owner's user) and changes the
#      file: the next pod's check refuses it (checksum mismatch), so its run says `absent (...)`.
#   5. The claim deleted: while the pods that mount it keep it (Terminating), a new pod gets no cache
#      and starts, where it would wait Pending on the claim; once it is gone, danki makes it again and
#      trains the cache (cause ClaimRecreated), with no change of the Deployment to prompt it.
#   6. An old JVM: `old` (the sample service on JDK 17) with the annotation: its AotCache turns
#      Unsupported with an AotCacheUnsupported Warning, and its pods still warm (Succeeded, no cache).
#
# Env: KUBECTL, HELM3 (default: bin/), KUBECONFIG (default .cluster/admin.kubeconfig),
#      IMAGE_TAG (default dev), E2E_AOT_TIMEOUT (s per wait, default 300).
# Ends with 'N passed, N failed'; exits 1 on any failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
E2E_NAME=e2e-aot
# shellcheck source=charts/scripts/e2e-lib.sh
source "$REPO/charts/scripts/e2e-lib.sh"
KUBECTL="${KUBECTL:-$REPO/bin/kubectl}"
HELM3="${HELM3:-$REPO/bin/helm3}"
export KUBECONFIG="${KUBECONFIG:-$REPO/.cluster/admin.kubeconfig}"
IMAGE_TAG="${IMAGE_TAG:-dev}"
TIMEOUT="${E2E_AOT_TIMEOUT:-300}"
CHART="$REPO/charts/danki"
REL=danki-aot
NS=danki-aot
APP=danki-aot-app
LEASE=danki-operator
# The JVM option the cache was not made with: a JVM given the cache with it refuses the cache.
REFUSED_OPTION=-XX:-UseCompressedOops
# the plan's cap; danki's floor (WarmupPlan.DEFAULT_MIN_WARMUP_REQUESTS) is below it, for every JVM
WARMUP_CAP=1000
DANKI_FLOOR=300
# The sample service image's own JAVA_TOOL_OPTIONS (Dockerfile), which a pod's variable would replace.
IMAGE_JAVA_OPTIONS="-XX:MaxRAMPercentage=60 -Djava.io.tmpdir=/tmp"

ka() { "$KUBECTL" -n "$APP" "$@"; }

preflight() {
  [[ -x $KUBECTL ]] || die "$KUBECTL missing; run 'make tool-kube'"
  [[ -x $HELM3 ]] || die "$HELM3 missing; run 'make tool-helm'"
  [[ -f $KUBECONFIG ]] || die "$KUBECONFIG missing; start the local cluster with 'make cluster-up'"
  kc get --raw /readyz >/dev/null 2>&1 || die "the cluster at $KUBECONFIG does not answer; run 'make cluster-up'"
  kc get storageclass danki-local -o name >/dev/null 2>&1 || die "no storage class danki-local on the cluster"
}

# exam_app NAME IMAGE: the sample service, opted in to warm-up and the AOT cache, with a small plan
exam_app() {
  ka apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  annotations:
    danki.dev/warmup: enabled
    danki.dev/aot-cache: enabled
    danki.dev/paths: "GET /exams/1; GET /exams/2"
    danki.dev/requests: "60"
    danki.dev/rate: "30"
    danki.dev/max-warmup-requests: "$WARMUP_CAP"
spec:
  replicas: 1
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - name: app
          image: $2
          env: [{name: PORT, value: "8080"}]
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /readyz, port: 8080}, periodSeconds: 1}
          resources: {limits: {memory: 768Mi}}
EOF
}

cache_field() { ka get aotcache "$1" -o jsonpath="{.status.$2}" 2>/dev/null; } # DEPLOYMENT FIELD
cache_phase_is() { [[ $(cache_field "$1" phase) == "$2" ]]; }
cache_ready_with_new_sha() { # DEPLOYMENT OLD-SHA
  cache_phase_is "$1" Ready && [[ -n $(cache_field "$1" sha256) && $(cache_field "$1" sha256) != "$2" ]]
}
live_pods() { # APP: pods not being deleted, oldest first
  ka get pods -l "app=$1" --sort-by=.metadata.creationTimestamp --no-headers \
    -o custom-columns='NAME:.metadata.name,DELETED:.metadata.deletionTimestamp' | awk '$2 == "<none>" {print $1}'
}
run_aot() { ka get warmupruns "$1" -o jsonpath='{.status.aotCache}' 2>/dev/null; }
run_phase() { ka get warmupruns "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
run_floor() { ka get warmupruns "$1" -o jsonpath='{.status.stopEvidence.minRequests}' 2>/dev/null; }
run_done() { [[ $(run_phase "$1") == Succeeded || $(run_phase "$1") == Failed ]]; }
pod_sha() { ka get pod "$1" -o jsonpath='{.metadata.annotations.danki\.dev/aot-cache}'; }
event_on() { # KIND NAME REASON: an Event of REASON on the object
  [[ -n $(ka get events --field-selector "involvedObject.kind=$1,involvedObject.name=$2,reason=$3" -o name) ]]
}
training_pods_gone() { [[ -z $(ka get pods -l danki.dev/aot-training -o name) ]]; }
claim_bound() { [[ $(ka get pvc "danki-aot-$1" -o jsonpath='{.status.phase}') == Bound ]]; }
claim_terminating() { [[ -n $(ka get pvc "danki-aot-$1" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null) ]]; }
claim_uid() { ka get pvc "danki-aot-$1" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
# claim_replaced DEPLOYMENT UID: the claim of that uid is gone (none now, or a new one in its place)
claim_replaced() { [[ $(claim_uid "$1") != "$2" ]]; }
cache_cause_is() { [[ $(cache_field "$1" trainCause) == "$2" ]]; } # DEPLOYMENT CAUSE
all_runs_done() { local p; for p in "$@"; do run_done "$p" || return 1; done; }

# scaled_pods REPLICAS COUNT: scales exam to REPLICAS and prints COUNT of its new pods, oldest first
scaled_pods() {
  local known
  known=$(live_pods exam)
  ka scale deploy exam --replicas="$1" >/dev/null
  new_pods exam "$known" "$2"
}

# new_pods APP KNOWN COUNT: waits for COUNT live pods of APP not in KNOWN and prints them, oldest first
new_pods() {
  local app=$1 known=$2 count=$3 deadline=$((SECONDS + TIMEOUT)) found
  while ((SECONDS < deadline)); do
    # oldest first: the first pod a change created is the one admitted before anything else moved
    found=$(live_pods "$app" | grep -vxF -f <(printf '%s\n' "$known") || true)
    if [[ $(grep -c . <<<"$found") -ge $count ]]; then echo "$found" | head -"$count"; return 0; fi
    sleep 1
  done
  echo "$found"
}

diagnose() {
  ka get pods -o wide 2>/dev/null | sed 's/^/     /' || true
  ka get aotcaches -o yaml 2>/dev/null | grep -E '^\s+(phase|reason|message|rejection|trainCause|sha256):' | sed 's/^/     /' || true
  ka get warmupruns -o custom-columns='RUN:.metadata.name,PHASE:.status.phase,AOT:.status.aotCache' 2>/dev/null | sed 's/^/     /' || true
  kc -n "$NS" logs -l app.kubernetes.io/name=danki --tail=30 2>/dev/null | grep -i aot | tail -15 | sed 's/^/     /' || true
}

helm_install() {
  local crd_flags=()
  if kc get crd aotcaches.danki.dev -o name >/dev/null 2>&1; then crd_flags=(--skip-crds); fi
  "$HELM3" upgrade --install "$REL" "$CHART" --namespace "$NS" --create-namespace "${crd_flags[@]}" \
    --set "image.tag=$IMAGE_TAG" --set "leaderElection.leaseName=$LEASE" --set logging.format=text \
    --set "watchNamespaces={$APP}" --set runner.enabled=true --set "runner.image.tag=$IMAGE_TAG" \
    --set aotCache.enabled=true --set aotCache.storageClassName=danki-local \
    --wait --timeout "${TIMEOUT}s" >/dev/null
}

cleanup() {
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$NS" "$APP" --ignore-not-found --wait=false >/dev/null 2>&1 || true
}

# --- 1: training -----------------------------------------------------------------------------------
phase_training() {
  exam_app exam "danki/sample-service-jdk25:$IMAGE_TAG"
  check "1: the AotCache of exam turns Ready" wait_for "$TIMEOUT" "AotCache exam Ready" cache_phase_is exam Ready
  SHA=$(cache_field exam sha256)
  check "1: its status names a SHA-256 ($SHA)" grep -qE '^[0-9a-f]{64}$' <<<"$SHA"
  local size; size=$(cache_field exam sizeBytes)
  check "1: and a size of more than 10 MB (${size:-none} bytes)" test "${size:-0}" -gt 10000000
  check "1: trained on the warm-up plan ($(cache_field exam trainingRequests) requests)" \
    test "$(cache_field exam trainingRequests)" -ge 600
  check "1: its claim danki-aot-exam is Bound" claim_bound exam
  check "1: the training and sealing pods are gone" wait_for 60 "training pods gone" training_pods_gone
  check "1: an AotCacheTrained Event on the Deployment" event_on Deployment exam AotCacheTrained
}

# --- 2: used ---------------------------------------------------------------------------------------
phase_used() {
  local pods pod
  pods=$(scaled_pods 3 2)
  check "2: two new pods ($(echo "$pods" | tr '\n' ' '))" test "$(grep -c . <<<"$pods")" -eq 2
  for pod in $pods; do
    check "2: $pod carries the cache's digest" same "$(pod_sha "$pod")" "$SHA"
  done
  local list; mapfile -t list <<<"$pods"
  check "2: their warm-ups end" wait_for "$TIMEOUT" "the runs" all_runs_done "${list[@]}"
  for pod in $pods; do
    check "2: $pod's run says the cache was used (got '$(run_aot "$pod")')" same "$(run_aot "$pod")" used
    check "2: an AotCacheUsed Event on $pod" event_on Pod "$pod" AotCacheUsed
    check "2: $pod's warm-up had danki's floor, as any JVM (got '$(run_floor "$pod")')" same "$(run_floor "$pod")" "$DANKI_FLOOR"
  done
  pod=$(head -1 <<<"$pods")
  # (besides the ServiceAccount token the API server mounts)
  check "2: the JVM container mounts the pod's copy read-only, and not the claim" same \
    "$(ka get pod "$pod" -o jsonpath='{range .spec.containers[?(@.name=="app")].volumeMounts[*]}{.name}:{.readOnly} {end}' | tr ' ' '\n' | grep '^danki-')" \
    "danki-aot:true"
  check "2: the claim is a read-only volume, mounted by danki-aot-verify alone, read-only" same \
    "$(ka get pod "$pod" -o jsonpath='{.spec.volumes[?(@.name=="danki-aot-store")].persistentVolumeClaim.readOnly} {range .spec.initContainers[*]}{.name}:{range .volumeMounts[?(@.name=="danki-aot-store")]}{.readOnly}{end} {end}')" \
    "true danki-aot-verify:true "
  check "2: -XX:AOTCache went to JDK_JAVA_OPTIONS; the pod sets no JAVA_TOOL_OPTIONS, so the image's stays" same \
    "$(ka get pod "$pod" -o jsonpath='{range .spec.containers[0].env[*]}{.name}={.value};{end}')" \
    "PORT=8080;JDK_JAVA_OPTIONS=-XX:AOTCache=/var/run/danki/aot/app.aot;"
}

# --- 3: rejected, then retrained -------------------------------------------------------------------
phase_rejected() {
  local known pods pod
  known=$(live_pods exam)
  # the image's options and one the cache was not made with
  ka set env deploy/exam "JAVA_TOOL_OPTIONS=$IMAGE_JAVA_OPTIONS $REFUSED_OPTION" >/dev/null
  pods=$(new_pods exam "$known" 3)
  check "3: the changed template rolls out ($(echo "$pods" | tr '\n' ' '))" test "$(grep -c . <<<"$pods")" -ge 1
  pod=$(head -1 <<<"$pods")
  check "3: the first new pod got the old cache" same "$(pod_sha "$pod")" "$SHA"
  check "3: its warm-up ends" wait_for "$TIMEOUT" "the run of $pod" run_done "$pod"
  check "3: its run says the JVM rejected the cache (got '$(run_aot "$pod")')" grep -q '^rejected (.*Unable to use AOT cache' <<<"$(run_aot "$pod")"
  check "3: an AotCacheRejected Event on $pod" event_on Pod "$pod" AotCacheRejected
  check "3: its warm-up had the same floor (got '$(run_floor "$pod")')" same "$(run_floor "$pod")" "$DANKI_FLOOR"
  check "3: the cache is retrained: Ready with a new digest" wait_for "$TIMEOUT" "a new cache" cache_ready_with_new_sha exam "$SHA"
  check "3: the retraining's cause is TemplateChanged or Rejected (got $(cache_field exam trainCause))" \
    grep -qE '^(TemplateChanged|Rejected)$' <<<"$(cache_field exam trainCause)"
  SHA=$(cache_field exam sha256)
  pod=$(scaled_pods 4 1)
  check "3: the next pod gets the new cache" same "$(pod_sha "$pod")" "$SHA"
  check "3: its warm-up ends" wait_for "$TIMEOUT" "the run of $pod" run_done "$pod"
  check "3: and its JVM uses it (got '$(run_aot "$pod")')" same "$(run_aot "$pod")" used
}

# claim_pod NAME READ-ONLY USER SCRIPT: a pod of danki's runner image with exam's claim at /store,
# running SCRIPT; prints its log once it ends
claim_pod() {
  ka apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  securityContext: {runAsUser: $3, runAsGroup: $3}
  containers:
    - name: sh
      image: danki/k6-runner:$IMAGE_TAG
      command: [sh, -c, '$4']
      volumeMounts: [{name: store, mountPath: /store, readOnly: $2}]
  volumes: [{name: store, persistentVolumeClaim: {claimName: danki-aot-exam, readOnly: $2}}]
EOF
  wait_for 120 "pod $1 to end" pod_ended "$1" || true
  ka logs "$1" 2>/dev/null
}
pod_ended() { [[ $(ka get pod "$1" -o jsonpath='{.status.phase}') =~ ^(Succeeded|Failed)$ ]]; }

# --- 4: nobody else writes the cache --------------------------------------------------------------
phase_read_only() {
  local out pod
  out=$(claim_pod reader true 1000 "ls -ln /store/cache; touch /store/cache/x 2>/dev/null && echo WROTE || echo REFUSED")
  check "4: a pod with the claim read-only cannot write it" grep -q '^REFUSED$' <<<"$out"
  check "4: the cache file is read-only for everyone (-r--r--r--)" grep -q "^-r--r--r-- .* $SHA.aot$" <<<"$out"
  # a pod that can write (read-write, as the sealer's user) replaces the file: the digest stops matching
  out=$(claim_pod tamper false 65532 "f=/store/cache/$SHA.aot; cat \$f > /tmp/c && echo tampered >> /tmp/c && rm -f \$f && cp /tmp/c \$f && echo CHANGED")
  check "4: a pod mounting the claim read-write changes the file" grep -q '^CHANGED$' <<<"$out"
  pod=$(scaled_pods 5 1)
  check "4: the next pod's warm-up ends" wait_for "$TIMEOUT" "the run of $pod" run_done "$pod"
  check "4: its check refused the changed file: absent (checksum mismatch) (got '$(run_aot "$pod")')" \
    grep -q '^absent (.*checksum' <<<"$(run_aot "$pod")"
  ka delete pod reader tamper --ignore-not-found --wait=false >/dev/null
}

# --- 5: the claim deleted ------------------------------------------------------------------------
phase_claim_gone() {
  local pod old_claim
  old_claim=$(claim_uid exam)
  ka delete pvc danki-aot-exam --wait=false >/dev/null
  # the pods that mount it keep it until they go (the kubernetes.io/pvc-protection finalizer)
  check "5: the deleted claim is kept, Terminating, while pods mount it" wait_for 60 "the claim Terminating" claim_terminating exam
  pod=$(scaled_pods 6 1)
  check "5: a new pod gets no cache (no digest on it)" same "$(pod_sha "$pod")" ""
  check "5: and starts, not Pending on the claim: its warm-up ends" wait_for "$TIMEOUT" "the run of $pod" run_done "$pod"
  check "5: Succeeded, with no cache ($(run_phase "$pod"), aotCache '$(run_aot "$pod")')" same "$(run_phase "$pod")/$(run_aot "$pod")" "Succeeded/"
  ka scale deploy exam --replicas=0 >/dev/null
  # danki makes it again at once: gone is a claim of another uid, or none
  check "5: the claim goes with the last pod that mounts it" wait_for 180 "the claim gone" claim_replaced exam "$old_claim"
  # no change of the Deployment from here: the claim's own deletion is what brings it back
  check "5: the claim gone makes it again and trains (cause ClaimRecreated), with no Deployment change" \
    wait_for 120 "a training caused by ClaimRecreated" cache_cause_is exam ClaimRecreated
  check "5: the claim is back" wait_for 120 "the claim Bound" claim_bound exam
  check "5: and the cache Ready again" wait_for "$TIMEOUT" "AotCache exam Ready" cache_phase_is exam Ready
}

# --- 6: a JVM without the AOT cache ----------------------------------------------------------------
phase_old_jvm() {
  exam_app old "danki/sample-service:$IMAGE_TAG"
  check "6: the AotCache of old (JDK 17) turns Unsupported" wait_for "$TIMEOUT" "AotCache old Unsupported" cache_phase_is old Unsupported
  check "6: with an AotCacheUnsupported Warning naming JDK 25" grep -q 'JDK 25' <<<"$(cache_field old message)"
  check "6: an AotCacheUnsupported Event on the Deployment" event_on Deployment old AotCacheUnsupported
  local pod; pod=$(live_pods old | head -1)
  check "6: its pod still warms" wait_for "$TIMEOUT" "the run of $pod" run_done "$pod"
  check "6: Succeeded, with no cache ($(run_phase "$pod"), aotCache '$(run_aot "$pod")')" same "$(run_phase "$pod")/$(run_aot "$pod")" "Succeeded/"
}

main() {
  preflight
  local started=$SECONDS phase_started
  trap cleanup EXIT
  echo "== AOT cache: $("$HELM3" version --short)"
  "$HELM3" uninstall "$REL" -n "$NS" --wait --timeout 60s >/dev/null 2>&1 || true
  kc delete namespace "$NS" "$APP" --ignore-not-found --timeout=120s >/dev/null
  kc create namespace "$APP" >/dev/null
  if helm_install; then pass "0: helm install with aotCache.enabled, runner.enabled, storage class danki-local"
  else fail "0: helm install with aotCache.enabled"; diagnose; echo "$PASSED passed, $FAILED failed"; exit 1; fi
  for phase in phase_training phase_used phase_rejected phase_read_only phase_claim_gone phase_old_jvm; do
    phase_started=$SECONDS
    "$phase"
    echo "     ($phase: $((SECONDS - phase_started)) s)"
    if ((FAILED > 0)); then diagnose; break; fi
  done
  echo "== AOT cache: done in $((SECONDS - started)) s"
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}

main "$@"
