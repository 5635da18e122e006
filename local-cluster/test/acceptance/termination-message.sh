# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Termination messages, as runner pods report their result: what a container writes to
# /dev/termination-log (or its own terminationMessagePath) becomes state.terminated.message, and
# lastState's after a restart; FallbackToLogsOnError takes the log's tail when the file is empty
# and the run failed. The host's /dev gets no termination-log. Also restartPolicy Never and
# OnFailure: pods end Failed and Succeeded.

cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: messages}
spec:
  restartPolicy: Never
  containers:
  - name: file
    image: danki/http-status:dev
    command: [/bin/sh, -c, "echo 'checks passed: 3' >/dev/termination-log"]
  - name: custom-path
    image: danki/http-status:dev
    command: [/bin/sh, -c, "echo 'summary written' >/danki-acceptance-results/summary"]
    terminationMessagePath: /danki-acceptance-results/summary
  - name: fallback
    image: danki/http-status:dev
    command: [/bin/sh, -c, "for i in $(seq 1 100); do echo line $i; done; exit 3"]
    terminationMessagePolicy: FallbackToLogsOnError
---
apiVersion: v1
kind: Pod
metadata: {name: on-failure}
spec:
  restartPolicy: OnFailure
  containers:
  - name: app
    image: danki/http-status:dev
    command:
    - /bin/sh
    - -c
    - |
      if [ -e "$HOME/failed-once" ]; then echo 'second run passed' >/dev/termination-log; exit 0; fi
      touch "$HOME/failed-once"
      echo 'first run failed' >/dev/termination-log
      exit 1
YAML
phase_of() { pod_field "$1" '{.status.phase}'; }
messages_done() { [[ $(phase_of messages) == Failed ]]; }
check "termination: restartPolicy Never, one container exits 3: the pod ends Failed" until_true 30 messages_done
message_of() { "${K[@]}" -n "$NS" get pod "$1" -o jsonpath="{.status.containerStatuses[?(@.name==\"$2\")].state.terminated.message}"; }
check "termination: the file at /dev/termination-log is the message ('$(message_of messages file)')" \
  test "$(message_of messages file)" == "checks passed: 3"
check "termination: so is the file at a custom terminationMessagePath ('$(message_of messages custom-path)')" \
  test "$(message_of messages custom-path)" == "summary written"
fallback=$(message_of messages fallback)
check "termination: FallbackToLogsOnError gives the log's last 80 lines (line 21 to line 100)" \
  test "$(head -1 <<<"$fallback")|$(tail -1 <<<"$fallback")|$(wc -l <<<"$fallback")" == "line 21|line 100|80"
check "termination: the host's /dev has no termination-log, nor / a /danki-acceptance-results" \
  bash -c '! ls -d /dev/termination-log /danki-acceptance-results 2>/dev/null'
on_failure_done() { [[ $(phase_of on-failure) == Succeeded ]]; }
check "termination: restartPolicy OnFailure restarts a failed run and the pod ends Succeeded" until_true 30 on_failure_done
last=$(pod_field on-failure '{.status.containerStatuses[0].lastState.terminated.message}')
check "termination: the restarted container's lastState keeps the failed run's message ('$last')" test "$last" == "first run failed"
check "termination: and its state has the second run's" \
  test "$(pod_field on-failure '{.status.containerStatuses[0].state.terminated.message}')" == "second run passed"
