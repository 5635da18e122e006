# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# Item 5: an image missing from the catalog gives ErrImagePull with a message naming the catalog,
# and a Failed event; the agent does not crash.

CATALOG_NAME=images.yaml
"${K[@]}" -n "$NS" run missing-image --image=danki/not-in-catalog:1 --restart=Never >/dev/null
waiting_reason() { "${K[@]}" -n "$NS" get pod missing-image -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}'; }
err_image_pull() { [[ $(waiting_reason) == ErrImagePull ]]; }
check "5. an image missing from the catalog gives waiting reason ErrImagePull" until_true 20 err_image_pull
msg=$("${K[@]}" -n "$NS" get pod missing-image -o jsonpath='{.status.containerStatuses[0].state.waiting.message}')
note "message: $msg"
check "5. the message names the catalog file ($CATALOG_NAME)" grep -q "local-cluster/$CATALOG_NAME" <<<"$msg"
check "5. the node agent is still running" is_running node-agent
check "5. the missing image has a Failed event ($(event_reasons missing-image))" until_true 10 has_events missing-image Failed
