# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, JRE_IMAGE, helpers from lib.sh)
# A pod of the local JRE base image (built by node-images.sh, pulled from the instance's registry: the
# first pull of the instance, so its time from apply to Ready includes it) runs as the Dockerfile's
# user 65532 and becomes Ready; the API server reaches its kubelet for `kubectl logs` and `kubectl exec`.

cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: jre, labels: {app: jre}}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n2}
  terminationGracePeriodSeconds: 2
  securityContext: {runAsUser: 65532, runAsGroup: 65532, runAsNonRoot: true}
  containers:
  - name: app
    image: $JRE_IMAGE
    command: [sh, -c, 'java -version 2>&1; touch /tmp/ready; exec sleep 3600']
    readinessProbe: {exec: {command: [test, -f, /tmp/ready]}, periodSeconds: 1}
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 500m, memory: 256Mi}}
EOF2
t0=$(now_ms)
pod_ready() { [[ $(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
if until_true 90 pod_ready jre; then
  pass "a pod of $JRE_IMAGE is Ready ($(secs $(($(now_ms) - t0))) s from apply with its first pull, on $(pod_field jre '{.spec.nodeName}'))"
else
  fail "a pod of $JRE_IMAGE is Ready within 90 s"
  "${K[@]}" -n "$NS" describe pod jre | tail -15
fi
check "its imageID is the digest the registry has for $JRE_IMAGE" pulled_from_registry jre
logs=$("${K[@]}" -n "$NS" logs jre 2>&1)
check "kubectl logs shows the container's java -version" grep -q 'openjdk version "17' <<<"$logs"
check "kubectl exec runs as user 65532" test "$("${K[@]}" -n "$NS" exec jre -- id -u 2>&1)" == 65532
exec_java=$("${K[@]}" -n "$NS" exec jre -- java -XshowSettings:properties -version 2>&1)
check "kubectl exec runs the image's java (java.home /opt/java/openjdk)" grep -q 'java.home = /opt/java/openjdk' <<<"$exec_java"
# The operator starts k6 through util-linux's setpriv --pdeathsig, as Temurin's Ubuntu has it;
# busybox's setpriv refuses the option and every warm-up failed with k6's exit code 1.
# Under a shell that waits for it: the parent of an exec'd process is runc, which exits at once,
# and the death signal it asked for then kills it (exit code 137). busybox's sh execs the last
# command of -c in place of itself, so "; true" keeps the shell as setpriv's parent (without it the
# check failed on and off under load). By its path, as the operator runs it: busybox's sh prefers
# its own setpriv applet to a bare "setpriv".
pdeath=$("${K[@]}" -n "$NS" exec jre -- sh -c '/usr/bin/setpriv --pdeathsig KILL echo pdeathsig-ok; true' 2>&1)
check "the image's setpriv takes --pdeathsig, as the operator runs k6 with it (${pdeath:0:120})" grep -q pdeathsig-ok <<<"$pdeath"
