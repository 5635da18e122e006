# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Volumes: configMap (all keys; items with path and mode), secret (defaultMode), emptyDir (shared by
# two containers, also mounted read-only) and subPath reach the container, mounted inside its own
# mount namespace: the host sees neither the mounts nor their mount points. A pod whose ConfigMap
# does not exist yet waits with CreateContainerConfigError naming it, and starts once it exists.

cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: ConfigMap
metadata: {name: vol-config}
data: {greeting: hello, script.js: "export default function () {}"}
---
apiVersion: v1
kind: Secret
metadata: {name: vol-secret}
stringData: {token: s3cret}
---
apiVersion: v1
kind: Pod
metadata: {name: volumes}
spec:
  restartPolicy: Never
  containers:
  - name: writer
    image: danki/http-status:dev
    command: [/bin/sh, -c, "echo shared >/danki-acceptance-writer/from-writer"]
    volumeMounts: [{name: scratch, mountPath: /danki-acceptance-writer}]
  - name: check
    image: danki/http-status:dev
    command:
    - /bin/sh
    - -c
    - |
      r=/danki-acceptance failed=0
      t() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; failed=1; fi; }
      for i in 1 2 3 4 5 6 7 8 9 10; do [ -e $r/scratch/from-writer ] && break; sleep 0.5; done
      t configmap-all-keys '[ "$(cat /etc/danki-acceptance/config/greeting)" = hello ] && [ -f /etc/danki-acceptance/config/script.js ]'
      t configmap-read-only '! touch /etc/danki-acceptance/config/new 2>/dev/null'
      t items-path-and-mode '[ "$(cat $r/picked/sub/hello.txt)" = hello ] && [ "$(stat -L -c %a $r/picked/sub/hello.txt)" = 400 ] && [ ! -e $r/picked/greeting ]'
      t secret-default-mode '[ "$(cat $r/secret/token)" = s3cret ] && [ "$(stat -L -c %a $r/secret/token)" = 440 ]'
      t subpath-file '[ "$(cat $r/one.js)" = "export default function () {}" ]'
      t emptydir-shared '[ "$(cat $r/scratch/from-writer)" = shared ]'
      t emptydir-writable 'echo data >$r/scratch/mine && [ "$(cat $r/scratch/mine)" = data ]'
      t emptydir-read-only-mount '[ "$(cat $r/scratch-ro/mine)" = data ] && ! touch $r/scratch-ro/x 2>/dev/null'
      exit $failed
    volumeMounts:
    - {name: config, mountPath: /etc/danki-acceptance/config}
    - {name: picked, mountPath: /danki-acceptance/picked}
    - {name: secret, mountPath: /danki-acceptance/secret}
    - {name: config, mountPath: /danki-acceptance/one.js, subPath: script.js}
    - {name: scratch, mountPath: /danki-acceptance/scratch}
    - {name: scratch, mountPath: /danki-acceptance/scratch-ro, readOnly: true}
  volumes:
  - {name: config, configMap: {name: vol-config}}
  - {name: picked, configMap: {name: vol-config, defaultMode: 0640, items: [{key: greeting, path: sub/hello.txt, mode: 0400}]}}
  - {name: secret, secret: {secretName: vol-secret, defaultMode: 0440}}
  - {name: scratch, emptyDir: {medium: Memory}}
---
apiVersion: v1
kind: Pod
metadata: {name: late-config}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: danki/http-status:dev
    command: [/bin/sh, -c, "cat /danki-acceptance/late/value"]
    volumeMounts: [{name: late, mountPath: /danki-acceptance/late}]
  volumes: [{name: late, configMap: {name: created-later}}]
YAML
volumes_done() { [[ $(pod_field volumes '{.status.phase}') == Succeeded || $(pod_field volumes '{.status.phase}') == Failed ]]; }
until_true 30 volumes_done
VOLUME_LOG=$(cat "$CLUSTER_DIR"/agent/pods/"${NS}"_volumes_*/check.log 2>/dev/null)
for what in configmap-all-keys configmap-read-only items-path-and-mode secret-default-mode subpath-file \
  emptydir-shared emptydir-writable emptydir-read-only-mount; do
  check "volumes: $what" grep -qx "ok $what" <<<"$VOLUME_LOG"
done
check "volumes: the pod Succeeds ($(pod_field volumes '{.status.phase}'))" test "$(pod_field volumes '{.status.phase}')" == Succeeded
check "volumes: the host has none of the mount points (/etc/danki-acceptance, /danki-acceptance*)" \
  bash -c '! ls -d /etc/danki-acceptance /danki-acceptance* 2>/dev/null'

late_waiting() { [[ $(pod_field late-config '{.status.containerStatuses[0].state.waiting.reason}') == CreateContainerConfigError ]]; }
check "volumes: a missing ConfigMap keeps the container waiting with CreateContainerConfigError" until_true 20 late_waiting
msg=$(pod_field late-config '{.status.containerStatuses[0].state.waiting.message}')
check "volumes: the message names it ('$msg')" grep -q 'configmap "created-later" not found' <<<"$msg"
"${K[@]}" -n "$NS" create configmap created-later --from-literal=value=arrived >/dev/null
late_done() { [[ $(pod_field late-config '{.status.phase}') == Succeeded ]]; }
check "volumes: once the ConfigMap exists the container starts and reads it" until_true 20 late_done
check "volumes: and reads its value" grep -qx arrived "$CLUSTER_DIR"/agent/pods/"${NS}"_late-config_*/app.log
