# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, QUIET_* from replicas.sh)
# The kubelet writes a pod's status when it changes, never on a timer: a quiet pod (Ready since
# the replicas part, probed every second) keeps its resourceVersion for at least 40 s. The parts
# in between take about that long anyway; this waits only for what is left.

quiet_ms=$(($(now_ms) - QUIET_SINCE))
((quiet_ms >= 40000)) || sleep "$(((40000 - quiet_ms) / 1000 + 1))"
rv=$(pod_field quiet '{.metadata.resourceVersion}')
check "status: a quiet pod's status is not rewritten (resourceVersion $QUIET_RV, now $rv, over $(secs $(($(now_ms) - QUIET_SINCE))) s)" \
  test "$rv" == "$QUIET_RV"
