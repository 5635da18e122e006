# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# A failing liveness probe restarts its container, with the kubelet's events; and so it does
# when the container ignores SIGTERM, as a hung JVM does: SIGKILL after the grace period, then
# the container runs again.

# `hung`: its first run answers 500 and ignores SIGTERM; the marker in its HOME (the pod's folder,
# kept across restarts) makes the next run healthy. The probe's own grace period (2 s) applies,
# not the pod's (30 s).
t=$(now_ms)
cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: unhealthy}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: danki/http-status:dev
    env: [{name: STATUS, value: "500"}]
    livenessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1, failureThreshold: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: hung}
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: danki/http-status:dev
    command:
    - /bin/sh
    - -c
    - |
      if [ -e "$HOME/ran-once" ]; then exec /usr/bin/python3 -u local-cluster/images/http-status.py; fi
      touch "$HOME/ran-once"
      STATUS=500 exec /usr/bin/python3 -u local-cluster/images/http-status.py
    env: [{name: ON_SIGTERM, value: ignore}]
    livenessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1, failureThreshold: 2, terminationGracePeriodSeconds: 2}
YAML
restarted() { # the count is empty until the first status: not yet, rather than a syntax error
  local n
  n=$(pod_field unhealthy '{.status.containerStatuses[0].restartCount}')
  ((${n:-0} >= 1))
}
check "probes: a failing liveness probe restarts the container" until_true 30 restarted
check "events: the restarted pod has Started, Unhealthy and Killing events ($(event_reasons unhealthy))" \
  until_true 10 has_events unhealthy Started Unhealthy Killing

hung_back() {
  [[ $(pod_field hung '{.status.containerStatuses[0].restartCount}') -ge 1 &&
    -n $(pod_field hung '{.status.containerStatuses[0].state.running.startedAt}') ]]
}
# 25 s: enough under load with the probe's 2 s grace, too short for the pod's 30 s.
check "probes: a container that ignores SIGTERM and fails its liveness probe is restarted and Running again" \
  until_true 25 hung_back
note "hung container: apply to restarted and running $(secs $(($(now_ms) - t))) s (probe grace 2 s, pod grace 30 s)"
last_exit=$(pod_field hung '{.status.containerStatuses[0].lastState.terminated.exitCode}')
check "probes: it was ended by SIGKILL after the probe's 2 s grace (last exit code $last_exit, 137 = SIGKILL)" \
  test "$last_exit" == 137
hung_ready() { [[ $(pod_field hung '{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
check "probes: and the restarted container is Ready" until_true 10 hung_ready
