# shellcheck shell=bash
# cluster-pki.sh - certificates and kubeconfigs of one cluster instance; sourced by cluster-up.sh
# after cluster-env.sh. Made once per CLUSTER_DIR with openssl and reused by later runs.

# cert name CN O [SANs]: a client cert (no SANs) or server cert (SANs) signed by the instance's CA
cert() {
  local n=$1 cn=$2 o=$3 san=${4:-}
  if [[ -f $PKI/$n.crt ]]; then
    # An API server cert from another instance's settings would not name this bridge address.
    [[ -z $san ]] || openssl x509 -in "$PKI/$n.crt" -noout -ext subjectAltName 2>/dev/null | grep -q "IP Address:$BRIDGE_IP\b" && return
  fi
  openssl req -new -newkey rsa:2048 -nodes -keyout "$PKI/$n.key" -out "$PKI/$n.csr" \
    -subj "/CN=$cn${o:+/O=$o}" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [[ -n $san ]]; then
      echo "extendedKeyUsage=serverAuth"
      echo "subjectAltName=$san"
    else echo "extendedKeyUsage=clientAuth"; fi
  } >"$PKI/$n.ext"
  openssl x509 -req -in "$PKI/$n.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -sha256 -extfile "$PKI/$n.ext" -out "$PKI/$n.crt" 2>/dev/null
  rm -f "$PKI/$n.csr" "$PKI/$n.ext"
}

# kubeconfig name: $CLUSTER_DIR/name.kubeconfig with the client cert embedded
kubeconfig() {
  local f=$CLUSTER_DIR/$1.kubeconfig
  # Reused when it already points at this instance's API server (kubectl calls cost time on busy machines).
  [[ $f -nt $PKI/$1.crt ]] && grep -q "server: $API_URL\$" "$f" 2>/dev/null && return
  "$KUBECTL" config set-cluster local --server="$API_URL" --certificate-authority="$PKI/ca.crt" \
    --embed-certs --kubeconfig="$f" >/dev/null
  "$KUBECTL" config set-credentials "$1" --client-certificate="$PKI/$1.crt" \
    --client-key="$PKI/$1.key" --embed-certs --kubeconfig="$f" >/dev/null
  "$KUBECTL" config set-context local --cluster=local --user="$1" --kubeconfig="$f" >/dev/null
  "$KUBECTL" config use-context local --kubeconfig="$f" >/dev/null
}

make_pki() {
  if [[ ! -f $PKI/ca.crt ]]; then
    openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" \
      -days 3650 -subj "/CN=danki-local-ca-$I" 2>/dev/null
  fi
  cert apiserver kube-apiserver "" \
    "IP:127.0.0.1,IP:$BRIDGE_IP,IP:$SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin admin system:masters
  cert kube-controller-manager system:kube-controller-manager ""
  cert kube-scheduler system:kube-scheduler ""
  if [[ ! -f $PKI/sa.key ]]; then
    openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
    openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  fi
  chmod 600 "$PKI"/*.key
  local k
  for k in admin kube-controller-manager kube-scheduler; do kubeconfig "$k"; done
}
