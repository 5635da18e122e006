# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh, which sets K and NS (and registry_digest)
# lib.sh - the acceptance test's vocabulary: checks, bounded waits, timings, and a pod's fields
# and events. Not a part: real-kubelet.sh sources it before the parts.

PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
note() { printf '      %s\n' "$*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { local ms=$1; printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
# until_true seconds cmd...: polls every 0.25 s, at most the given seconds
until_true() { local limit=$1 n; shift; for ((n = 0; n < limit * 4; n++)); do "$@" && return 0; sleep 0.25; done; return 1; }

# pod_field pod jsonpath: one field of a pod in the test namespace
pod_field() { "${K[@]}" -n "$NS" get pod "$1" -o jsonpath="$2"; }
event_reasons() { "${K[@]}" -n "$NS" get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | sort -u | tr '\n' ' '; }
# has_events pod reason...: the pod has an event with every one of the reasons
has_events() { local got r; got=$(event_reasons "$1"); shift; for r; do [[ " $got" == *" $r "* ]] || return 1; done; }

# pulled_from_registry pod...: each pod's imageID (repository@digest) is the registry's digest for the
# tag its spec names (docker.io/ and localhost/ are the registry's, node-config.sh)
pulled_from_registry() {
  local pod image id ref want
  for pod; do
    image=$(pod_field "$pod" '{.spec.containers[0].image}')
    id=$(pod_field "$pod" '{.status.containerStatuses[0].imageID}')
    ref=${image#docker.io/}; ref=${ref#localhost/}
    want=$(registry_digest "$ref")
    [[ -n $want && $id == *"@$want" ]] || { note "$pod: $image runs $id, the registry has ${want:-nothing}"; return 1; }
    note "$pod: $image -> ${id##*/}"
  done
}
