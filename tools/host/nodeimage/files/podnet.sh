#!/bin/bash
# draconform-podnet: the pod network of draconform's offline kind node image.
# kind's own CNI (kindnet) comes as an image from a registry this machine
# cannot reach; what it does for a cluster of a few nodes on one Docker
# network is small, and done here the same way: each node gets a bridge
# with the pod range the controller manager gave it (Node.spec.podCIDR),
# and a route to every other node's pod range through that node's address.
set -u
kubeconfig=/etc/kubernetes/kubelet.conf
conf=/etc/cni/net.d/10-draconform-podnet.conflist
node=$(hostname)
kc() { kubectl --kubeconfig "$kubeconfig" --request-timeout=5s "$@"; }

write_conf() {
  local tmp
  tmp=$(mktemp /etc/cni/net.d/.podnet.XXXXXX)
  cat > "$tmp" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "draconform-podnet",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$1"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
JSON
  chmod 644 "$tmp"
  mv "$tmp" "$conf"
  echo "draconform-podnet: pods of $node get addresses from $1"
}

while true; do
  if [ -s "$kubeconfig" ]; then
    own=$(kc get node "$node" -o 'jsonpath={.spec.podCIDR}' 2>/dev/null || true)
    if [ -n "$own" ] && ! grep -qF "\"$own\"" "$conf" 2>/dev/null; then
      write_conf "$own"
    fi
    kc get nodes -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}' 2>/dev/null |
      while read -r name cidr addr; do
        if [ "$name" = "$node" ] || [ -z "$cidr" ] || [ -z "$addr" ]; then
          continue
        fi
        if ! ip route show "$cidr" | grep -qF "via $addr "; then
          ip route replace "$cidr" via "$addr" && echo "draconform-podnet: pods of $name ($cidr) via $addr"
        fi
      done
  fi
  sleep 2
done
