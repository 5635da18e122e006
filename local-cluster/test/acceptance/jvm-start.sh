# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# How long a JVM pod takes from apply to Ready (needs the sample-service jar; measured, not asserted).

if [[ ! -f $REPO/sample-service/target/sample-service-all.jar ]]; then
  note "sample-service jar not built: JVM pod start time not measured"
  return 0
fi
t=$(now_ms)
cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: jvm}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: danki/sample-service:dev
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
YAML
if "${K[@]}" -n "$NS" wait pod/jvm --for=condition=Ready --timeout=90s >/dev/null 2>&1; then
  note "JVM pod (danki/sample-service:dev): apply to Ready $(secs $(($(now_ms) - t))) s"
else
  note "JVM pod did not become Ready within 90 s (log: $(ls "$CLUSTER_DIR"/agent/pods/"${NS}"_jvm_*/app.log 2>/dev/null))"
fi
"${K[@]}" -n "$NS" delete pod jvm --wait=false >/dev/null
