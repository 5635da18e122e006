# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, I, STORAGE_CLASS, PV_POOL_SIZE, JRE25_IMAGE, helpers from lib.sh)
# The storage class danki-local (cluster-storage.sh), where danki's AOT cache keeps a claim per
# Deployment: after cluster-up its pool of hostPath volumes is Available; a claim binds at once (the
# controller-manager's persistentvolume-binder, volumeBindingMode Immediate); a pod of the JRE 25 base,
# as the images' user 65532, writes through the claim into the volume's folder on the host, and a pod
# on another node reads the file (ReadWriteMany: every node is this host).

available() { "${K[@]}" get pv -l danki.dev/local-volume-pool=true -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c '^Available$'; }
check "the storage class $STORAGE_CLASS has its $PV_POOL_SIZE volumes Available ($(available))" test "$(available)" == "$PV_POOL_SIZE"

cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: store}
spec:
  storageClassName: $STORAGE_CLASS
  accessModes: [ReadWriteMany]
  resources: {requests: {storage: 1Gi}}
EOF2
t0=$(now_ms)
claim_bound() { [[ $("${K[@]}" -n "$NS" get pvc store -o jsonpath='{.status.phase}') == Bound ]]; }
if until_true 30 claim_bound; then
  pass "a claim on $STORAGE_CLASS binds ($(secs $(($(now_ms) - t0))) s)"
else
  fail "a claim on $STORAGE_CLASS binds within 30 s"
  "${K[@]}" -n "$NS" describe pvc store | tail -8
fi
volume=$("${K[@]}" -n "$NS" get pvc store -o jsonpath='{.spec.volumeName}')
folder=$("${K[@]}" get pv "$volume" -o jsonpath='{.spec.hostPath.path}' 2>/dev/null)

# store_pod NAME NODE COMMAND: a pod of the JRE 25 base on node NODE (1..3), user 65532, the claim at
# /data; Ready once COMMAND has made /tmp/ready
store_pod() {
  cat <<EOF2 | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  nodeSelector: {kubernetes.io/hostname: danki$I-n$2}
  terminationGracePeriodSeconds: 1
  securityContext: {runAsUser: 65532, runAsGroup: 65532, runAsNonRoot: true}
  containers:
  - name: app
    image: $JRE25_IMAGE
    command: [sh, -c, '$3; touch /tmp/ready; exec sleep 3600']
    readinessProbe: {exec: {command: [test, -f, /tmp/ready]}, periodSeconds: 1}
    resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {memory: 256Mi}}
    volumeMounts: [{name: store, mountPath: /data}]
  volumes: [{name: store, persistentVolumeClaim: {claimName: store}}]
EOF2
}
pod_ready() { [[ $(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
# shellcheck disable=SC2016 # $(id -u) is the pod's shell's
store_pod writer 1 'java -version 2>&1; echo written-by-$(id -u) >/data/probe'
check "a pod of $JRE25_IMAGE with the claim is Ready on danki$I-n1" until_true 90 pod_ready writer
check "  ... its java is JDK 25 (kubectl logs)" grep -q 'openjdk version "25' <<<"$("${K[@]}" -n "$NS" logs writer 2>&1)"
check "  ... as user 65532 it wrote probe into $volume's folder on the host (${folder:-no hostPath})" \
  test "$(cat "$folder/probe" 2>/dev/null)" == written-by-65532
store_pod reader 3 'cat /data/probe'
until_true 60 pod_ready reader || note "reader is not Ready"
check "a pod on danki$I-n3 with the same claim reads it" grep -qx written-by-65532 <<<"$("${K[@]}" -n "$NS" logs reader 2>&1)"
"${K[@]}" -n "$NS" delete pod writer reader --wait=false >/dev/null 2>&1 || true
