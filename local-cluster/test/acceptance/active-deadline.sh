# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# activeDeadlineSeconds: a pod that runs past it is killed and ends Failed with reason
# DeadlineExceeded, as the kubelet ends it, whatever its restartPolicy.

t=$(now_ms)
cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: deadline}
spec:
  activeDeadlineSeconds: 2
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: danki/http-status:dev
YAML
deadline_failed() { [[ $(pod_field deadline '{.status.phase}/{.status.reason}') == Failed/DeadlineExceeded ]]; }
check "deadline: a pod past activeDeadlineSeconds (2 s) ends Failed with reason DeadlineExceeded" until_true 20 deadline_failed
note "deadline pod: apply to Failed $(secs $(($(now_ms) - t))) s"
deadline_stopped() { [[ -n $(pod_field deadline '{.status.containerStatuses[0].state.terminated.finishedAt}') ]]; }
check "deadline: its container is stopped and not restarted (restartPolicy Always)" until_true 10 deadline_stopped
check "deadline: no process of it is left ($(instance_pod_processes deadline))" test "$(instance_pod_processes deadline)" == 0
check "deadline: it has a DeadlineExceeded event ($(event_reasons deadline))" until_true 10 has_events deadline DeadlineExceeded
