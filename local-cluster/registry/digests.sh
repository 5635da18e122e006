# shellcheck shell=bash disable=SC2154 # sourced after cluster-env.sh, which sets REGISTRY_ADDR
# digests.sh - an image's manifest digest in an OCI archive built here and in the instance's registry;
# sourced by push.sh, which pushes when the two differ, and by the acceptance test, which compares a
# pod's imageID with the registry's.

# archive_digest tar: the digest of the one manifest in an OCI archive (the first digest of its
# index.json, which skopeo writes on one line)
archive_digest() {
  tar -xOf "$1" index.json | grep -o '"digest": *"sha256:[0-9a-f]*"' | awk 'NR == 1' | grep -o 'sha256:[0-9a-f]*'
}

# registry_digest repository:tag: the digest of the manifest the registry has under that tag, or nothing
registry_digest() {
  curl -sI --max-time 5 -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
    "http://$REGISTRY_ADDR/v2/${1%:*}/manifests/${1##*:}" | tr -d '\r' |
    awk 'tolower($1) == "docker-content-digest:" {print $2}'
}
