# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh, which sets the paths and the port
# config.sh - the instance's OCI registry (CNCF Distribution, bin/registry): its configuration, which
# cluster-up.sh writes before it starts it, and the garbage collection cluster-down.sh runs once the
# registry has stopped.
#
# Plain HTTP on 127.0.0.1, no authentication: only this host's containerds and image tools reach it.
# The storage, $REGISTRY_DIR/data, outlives cluster-down (as the certificates and logs do), so the next
# cluster-up pushes only the images that changed; cluster-down collects what no tag names any more.

REGISTRY_CONFIG=$REGISTRY_DIR/config.yml
REGISTRY_DATA=$REGISTRY_DIR/data

write_registry_config() {
  mkdir -p "$REGISTRY_DATA"
  cat >"$REGISTRY_CONFIG" <<EOF
# Written by local-cluster/cluster-up.sh for instance $I; rewritten on every cluster-up.
version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: $REGISTRY_DATA
http:
  addr: $REGISTRY_ADDR
EOF
}

# collect_registry_garbage: with the registry stopped, delete every manifest no tag names (the images
# a later push replaced) and every blob no manifest needs, so the storage holds what the tags say.
collect_registry_garbage() {
  [[ -f $REGISTRY_CONFIG && -d $REGISTRY_DATA/docker/registry/v2/repositories ]] || return 0
  echo "--- garbage-collect at $(date -Is) ---" >>"$LOGS/registry.log"
  env -i OTEL_TRACES_EXPORTER=none "$BIN/registry" garbage-collect --delete-untagged --quiet "$REGISTRY_CONFIG" \
    >>"$LOGS/registry.log" 2>&1
}
