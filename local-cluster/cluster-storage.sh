# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh, which sets the paths and the pool's settings
# cluster-storage.sh - the local cluster's storage for PersistentVolumeClaims (danki's AOT cache keeps
# one claim per Deployment): the StorageClass danki-local and a pool of hostPath PersistentVolumes made
# in advance, since no provisioner runs here. Every node shares this host, so a hostPath volume is
# the same folder on every node: ReadWriteMany holds. Sourced by cluster-up.sh and cluster-down.sh.
#
# Each volume is $VOLUMES_DIR/pv-NN (NN from 00), PersistentVolume danki-local-NN; the folders are
# mode 1777 so a pod's non-root user (65532 in danki's images) writes to them as root does.
# The controller-manager's persistentvolume-binder (on by default) binds a claim to a volume.

# storage_manifest: the StorageClass and the PersistentVolumes of the pool, as YAML
storage_manifest() {
  local n name
  cat <<EOF2
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: $STORAGE_CLASS}
# No provisioner: the volumes below are the whole pool. Immediate, so a claim binds when it is made,
# as the AOT cache's training pod needs its claim before it is scheduled anywhere.
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
reclaimPolicy: Retain
EOF2
  for ((n = 0; n < PV_POOL_SIZE; n++)); do
    name=$(printf '%s-%02d' "$STORAGE_CLASS" "$n")
    cat <<EOF2
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: $name, labels: {danki.dev/local-volume-pool: "true"}}
spec:
  storageClassName: $STORAGE_CLASS
  capacity: {storage: $PV_CAPACITY}
  accessModes: [ReadWriteOnce, ReadWriteMany, ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: $(pv_dir "$n"), type: Directory}
EOF2
  done
}

pv_dir() { printf '%s/pv-%02d' "$VOLUMES_DIR" "$1"; }

# storage_up: the pool's folders, then its objects (kubectl apply: a cluster-up with KEEP_ETCD_DATA=1
# finds them there already)
storage_up() {
  local n dir
  mkdir -p "$VOLUMES_DIR"
  for ((n = 0; n < PV_POOL_SIZE; n++)); do
    dir=$(pv_dir "$n")
    mkdir -p "$dir"
    chmod 1777 "$dir"
  done
  storage_manifest | "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" apply -f - >/dev/null
}

# storage_remove: the pool's folders and what pods wrote in them. Only once no node runs: a pod's
# bind mount of a folder would otherwise outlive it.
storage_remove() {
  [[ -d $VOLUMES_DIR ]] || return 0
  rm -rf --one-file-system "$VOLUMES_DIR"
}
