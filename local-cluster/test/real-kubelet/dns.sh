# shellcheck shell=bash disable=SC2154 # sourced by real-kubelet.sh (K, NS, DNS_IP, echo_ip, fetch and helpers from lib.sh, services.sh)
# The cluster DNS (cluster-dns.sh): CoreDNS runs and is ready; a pod's resolv.conf names it with the
# cluster's search domains; pods on two nodes resolve Services by name, short and full, and the
# client reaches the Service echo (services.sh) by its name alone, as an app would; an unknown name is
# NXDOMAIN at once; and no pod so far got the kubelet's MissingClusterDNS Event.

check "CoreDNS runs and is ready (pid $(pid_of coredns), $DNS_IP:53)" healthy coredns
conf=$("${K[@]}" -n "$NS" exec client -- cat /etc/resolv.conf 2>&1)
note "client's resolv.conf: $(tr '\n' ' ' <<<"$conf")"
check "a pod's nameserver is the cluster DNS $DNS_IP" grep -qx "nameserver $DNS_IP" <<<"$conf"
check "its search domains are $NS.svc.$CLUSTER_DOMAIN svc.$CLUSTER_DOMAIN $CLUSTER_DOMAIN" \
  grep -q "^search $NS.svc.$CLUSTER_DOMAIN svc.$CLUSTER_DOMAIN $CLUSTER_DOMAIN\b" <<<"$conf"

# resolve POD NAME: the addresses busybox's nslookup got for NAME in POD (its own resolver, resolv.conf's server)
resolve() {
  "${K[@]}" -n "$NS" exec "$1" -- nslookup -type=a "$2" 2>/dev/null |
    awk '/^Name:/ { named = 1 } named && /^Address/ { print $NF }' | tr '\n' ' ' | sed 's/ $//'
}
# within seconds cmd...: cmd until it succeeds, for at most the given seconds of wall time (a lookup that
# gets no answer takes busybox 5 s, so a count of tries would not bound the wait)
within() { local end=$(($(now_ms) + $1 * 1000)); shift; until "$@"; do (($(now_ms) < end)) || return 1; sleep 0.25; done; }
resolves_to() { # pod name address: the lookup gives that address alone (sets got)
  got=$(resolve "$1" "$2")
  [[ $got == "$3" ]]
}
resolved() { # pod name address: within 10 s (the plugin sees a new Service once its watch delivers it)
  if within 10 resolves_to "$@"; then note "$1: $2 -> $got"; return 0; fi
  note "$1: $2 -> ${got:-nothing}, expected $3"
  return 1
}
check "a pod on n1 resolves echo.$NS.svc.$CLUSTER_DOMAIN to its ClusterIP $echo_ip" resolved client "echo.$NS.svc.$CLUSTER_DOMAIN" "$echo_ip"
check "a pod on n2 resolves kubernetes.default.svc.$CLUSTER_DOMAIN to 10.96.0.1" resolved jre "kubernetes.default.svc.$CLUSTER_DOMAIN" 10.96.0.1

# By the short name, through the C library's resolver and the search domains, as an app connects.
by_name() { [[ $(fetch client echo) == echo-a ]]; }
if within 10 by_name; then
  pass "a pod reaches the Service echo by its name alone (http://echo -> echo-a)"
else
  fail "a pod reaches the Service echo by its name alone within 10 s (got: $(fetch client echo))"
fi
t0=$(now_ms)
missing=$("${K[@]}" -n "$NS" exec client -- nslookup -type=a "no-such-service.$NS.svc.$CLUSTER_DOMAIN" 2>&1)
ms=$(($(now_ms) - t0))
nxdomain() { ((ms < 3000)) && grep -q NXDOMAIN <<<"$missing"; }
check "an unknown Service's name is NXDOMAIN at once ($(secs "$ms") s with kubectl exec)" nxdomain

missing_dns=$("${K[@]}" get events -A --field-selector reason=MissingClusterDNS --no-headers 2>/dev/null | wc -l)
check "no pod got a MissingClusterDNS Event ($missing_dns)" test "$missing_dns" == 0
