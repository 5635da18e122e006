#!/usr/bin/env bash
# lanes.sh - run lanes of make targets side by side and wait for all of them.
#
#   tools/lanes.sh 'e2e: test-e2e' 'nodes: test-real-kubelet test-faults'
#
# Each argument is one lane, "name: target...": its targets run one after the other in one make, and
# every line it prints is prefixed with the lane's name and the time. A lane that fails does not stop
# the others (each one brings its own local-cluster instance down). Exits 1 if any lane failed.
#
# Why: make test's cluster suites run on separate local-cluster instances, and most of their time is
# pods starting under their nodes' CPU budgets and waits on the control plane, not the host's CPU.
set -euo pipefail

MAKE=${MAKE:-make}
((${#@})) || { echo "usage: $0 'name: target...' ..." >&2; exit 2; }

pids=()
# Every lane runs in this process group; an interrupt stops them all, as it would one make.
trap 'trap - INT TERM; kill 0' INT TERM
for lane in "$@"; do
  name=${lane%%:*}
  read -r -a targets <<<"${lane#*:}"
  [[ $name != "$lane" && ${#targets[@]} -gt 0 ]] || { echo "lanes: '$lane' is not 'name: target...'" >&2; exit 2; }
  (
    start=$SECONDS
    set +e
    "$MAKE" --no-print-directory "${targets[@]}" 2>&1 |
      while IFS= read -r line; do printf '[%s %(%H:%M:%S)T] %s\n' "$name" -1 "$line"; done
    rc=${PIPESTATUS[0]}
    echo "==> lane $name (${targets[*]}): exit $rc after $((SECONDS - start)) s"
    exit "$rc"
  ) &
  pids+=($!)
done

rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
exit $rc
