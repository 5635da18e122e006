# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh, which sets K, I, CLUSTER_DIR, BRIDGE_IP
# lib.sh - the acceptance test's vocabulary: checks, bounded waits, timings, and counts of what
# an instance leaves on the host (namespaces, veths, processes).

PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
note() { printf '      %s\n' "$*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { local ms=$1; printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }
# until_true seconds cmd...: polls every 0.25 s, at most the given seconds
until_true() { local limit=$1 n; shift; for ((n = 0; n < limit * 4; n++)); do "$@" && return 0; sleep 0.25; done; return 1; }

node_ready() { [[ $("${K[@]}" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
# pod_field pod jsonpath: one field of a pod in the test namespace
pod_field() { "${K[@]}" -n "$NS" get pod "$1" -o jsonpath="$2"; }
event_reasons() { "${K[@]}" -n "$NS" get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | sort -u | tr '\n' ' '; }
# has_events pod reason...: the pod has an event with every one of the reasons
has_events() { local got r; got=$(event_reasons "$1"); shift; for r; do [[ " $got" == *" $r "* ]] || return 1; done; }

netns_of_instance() { ip netns list 2>/dev/null | awk '{print $1}' | grep -c "^danki$I-" || true; }
veths_of_instance() { ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -c "^dk${I}v" || true; }
# processes inside this instance's pod namespaces
pod_processes() {
  local ns n=0
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^danki$I-"); do
    n=$((n + $(ip netns pids "$ns" 2>/dev/null | wc -l)))
  done
  echo $n
}
# every process of the cluster itself: its control plane and agent are started from its state dir
cluster_processes() { pgrep -f -- "$CLUSTER_DIR/|--state-dir=$CLUSTER_DIR" | wc -l; }
# processes started for this instance's pods, wherever they are now: the agent gives every
# container KUBERNETES_SERVICE_HOST=<this instance's bridge address>, and children inherit it
# (and HOSTNAME=<pod name>); `instance_pod_processes web-` counts only pods named web-*
instance_pod_processes() {
  local f n=0
  # shellcheck disable=SC2013 # file names under /proc have no spaces
  for f in $(grep -lsxz "KUBERNETES_SERVICE_HOST=$BRIDGE_IP" /proc/[0-9]*/environ 2>/dev/null); do
    [[ -z ${1:-} ]] || grep -qsxz "HOSTNAME=$1.*" "$f" || continue
    n=$((n + 1))
  done
  echo $n
}
