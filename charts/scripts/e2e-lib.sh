# shellcheck shell=bash
# What the chart's cluster tests (e2e-chart.sh, e2e-webhook.sh, e2e-webhook-race.sh) share: the
# pass/fail tally that ends in 'N passed, N failed', and bounded waiting. Sourced, never run.
# The sourcing script sets E2E_NAME (for die's messages) and KUBECTL; WAIT_POLL (s) is optional.

PASSED=0
FAILED=0

pass() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
check() { # check NAME COMMAND...: passes when COMMAND succeeds
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
die() { echo "$E2E_NAME: $*" >&2; exit 1; }
kc() { "$KUBECTL" "$@"; }
same() { [[ $1 == "$2" ]]; } # same GOT WANT

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every WAIT_POLL s (default 1) until it
# succeeds or time runs out.
wait_for() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "     timed out after $limit s waiting for $what"; return 1; fi
    sleep "${WAIT_POLL:-1}"
  done
}
