#!/usr/bin/env bash
# lanes.sh - run lanes of make targets side by side and wait for all of them.
#
#   tools/lanes.sh 'e2e: test-e2e' 'nodes: test-real-kubelet test-faults'
#
# Each argument is one lane, "name: target...": its targets run one after the other in one make, and
# every line it prints is prefixed with the lane's name and the time. A lane that fails does not stop
# the others (each one brings its own local-cluster instance down). Exits 1 if any lane failed.
#
# The last lines printed are a summary: each lane's exit status and time and, for a lane that failed,
# its first failure lines. A CI log is often read from its tail only, and there a failed lane's own
# lines lie minutes above, under the other lane's output and its cluster coming down.
#
# Why lanes: make test's cluster suites run on separate local-cluster instances, and much of each one's
# time is waiting: pods starting under their nodes' CPU budgets, the control plane. Two cluster lanes
# side by side kept the host's 2 cores about 80 % busy (a cold make test, sampled every 10 s).
# make test's first lanes are the cluster tools' Go builds beside the Kotlin lint, jars, unit tests and
# other linters, which need none of them and leave a core idle on their own; its image checks run beside
# the cluster suites.
set -euo pipefail

MAKE=${MAKE:-make}
# Lines that mark a failure in what our suites print: e2e-lib.sh's "FAIL", Maven's "[ERROR]", make's
# "***", JUnit's assertion messages, a script's "FAILED:". Output a test captured and shows indented
# behind "|" (the demo-watch test's expected failures) is not a failure of the lane.
FAILURE_LINES=${LANES_FAILURE_LINES:-'(^| )FAIL( |$)|FAILED:|\[ERROR\]|\*\*\*|AssertionFailedError'}
CAPTURED_LINES='^\[[^]]*\] +\| '
SUMMARY_LINES_PER_LANE=${LANES_SUMMARY_LINES:-8}
((${#@})) || { echo "usage: $0 'name: target...' ..." >&2; exit 2; }

logs=$(mktemp -d)
pids=() names=()
# Every lane runs in this process group; an interrupt stops them all, as it would one make.
trap 'trap - INT TERM; kill 0' INT TERM
trap 'rm -rf "$logs"' EXIT
for lane in "$@"; do
  name=${lane%%:*}
  read -r -a targets <<<"${lane#*:}"
  [[ $name != "$lane" && ${#targets[@]} -gt 0 ]] || { echo "lanes: '$lane' is not 'name: target...'" >&2; exit 2; }
  (
    start=$SECONDS
    set +e
    "$MAKE" --no-print-directory "${targets[@]}" 2>&1 |
      while IFS= read -r line; do printf '[%s %(%H:%M:%S)T] %s\n' "$name" -1 "$line"; done |
      tee "$logs/$name.log"
    rc=${PIPESTATUS[0]}
    result="lane $name (${targets[*]}): exit $rc after $((SECONDS - start)) s"
    echo "$result" >"$logs/$name.result"
    echo "==> $result"
    exit "$rc"
  ) &
  pids+=($!) names+=("$name")
done

rc=0 failed=()
for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; failed+=("${names[$i]}"); }; done

echo "==> lanes summary"
for name in "${names[@]}"; do echo "    $(cat "$logs/$name.result" 2>/dev/null || echo "lane $name: no result")"; done
for name in "${failed[@]}"; do
  echo "==> lane $name failed; its first failure lines (the whole lane is above, prefixed [$name ...]):"
  grep -E -- "$FAILURE_LINES" "$logs/$name.log" | grep -v -E -- "$CAPTURED_LINES" | head -n "$SUMMARY_LINES_PER_LANE" |
    sed 's/^/    /' || true
done
exit $rc
