#!/bin/bash
# iptables-wrapper for draconform's kube-proxy image. kube-proxy must write
# its rules with the iptables backend (legacy or nft) the node uses, which
# kind's entrypoint picks at boot by counting the rules of each; this does
# the same at kube-proxy's first call, points every iptables command at the
# chosen backend, and runs the call.
set -eu
count() { "xtables-$1-multi" iptables-save 2>/dev/null | grep -c '^-' || true; }
mode=nft
if [ "$(count legacy)" -gt "$(count nft)" ]; then
  mode=legacy
fi
for cmd in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
  ln -sf "xtables-$mode-multi" "/usr/sbin/$cmd"
done
exec "$0" "$@"
