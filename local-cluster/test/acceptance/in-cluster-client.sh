# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# A pod reaches the API server as an in-cluster client, authenticated as its service account.

cat <<'YAML' | "${K[@]}" -n "$NS" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: whoami}
spec:
  restartPolicy: Never
  containers:
  - name: kubectl
    image: danki/http-status:dev
    command: [bin/kubectl, auth, whoami, -o, "jsonpath={.status.userInfo.username}"]
YAML
whoami_done() { [[ $(pod_field whoami '{.status.phase}') == Succeeded ]]; }
check "in-cluster: a pod's kubectl reaches the API server and the pod Succeeds" until_true 30 whoami_done
who=$(cat "$CLUSTER_DIR"/agent/pods/"${NS}"_whoami_*/kubectl.log 2>/dev/null)
check "in-cluster: it is authenticated as its service account (got '$who')" test "$who" == "system:serviceaccount:$NS:default"
