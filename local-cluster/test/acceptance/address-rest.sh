# shellcheck shell=bash disable=SC2154 # sourced by acceptance.sh (K, NS, helpers from lib.sh)
# A deleted pod's address rests (60 s) while other addresses are free: the next pod, which the
# allocator's lowest-first rule would otherwise give exactly that address, gets another one.

pod_ip_set() { [[ -n $(pod_field "$1" '{.status.podIP}') ]]; }
"${K[@]}" -n "$NS" run rest-1 --image=danki/http-status:dev --restart=Never >/dev/null
until_true 20 pod_ip_set rest-1
first=$(pod_field rest-1 '{.status.podIP}')
"${K[@]}" -n "$NS" delete pod rest-1 --timeout=30s >/dev/null
"${K[@]}" -n "$NS" run rest-2 --image=danki/http-status:dev --restart=Never >/dev/null
until_true 20 pod_ip_set rest-2
second=$(pod_field rest-2 '{.status.podIP}')
check "address rest: the pod made right after another was deleted gets a new address ($second, not $first)" \
  test -n "$second" -a "$second" != "$first"
"${K[@]}" -n "$NS" delete pod rest-2 --wait=false >/dev/null
