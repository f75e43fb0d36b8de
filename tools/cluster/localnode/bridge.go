package localnode

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
)

// address is where the node's kubelet serves and what it reports as the
// node's InternalIP: the first address of the node's pod subnet, on the
// node's own CNI bridge, rather than an address of the machine's network.
// The API server, on this machine, reaches it there (logs, exec); the
// machine's network does not. The kubelet refuses a loopback node IP, and
// an address it serves on but does not report would leave the API server
// nothing to dial.
func (n *Node) address() (*net.IPNet, error) {
	return bridgeAddress(podSubnet(n.id))
}

// bridgeAddress is the first host address of subnet, which host-local
// never hands to a pod: it is the range's gateway, which its allocator
// skips.
func bridgeAddress(subnet string) (*net.IPNet, error) {
	_, ipn, err := net.ParseCIDR(subnet)
	if err != nil {
		return nil, fmt.Errorf("the node's pod subnet %q: %w", subnet, err)
	}
	ip := ipn.IP.To4()
	if ip == nil {
		return nil, fmt.Errorf("the node's pod subnet %q is not IPv4", subnet)
	}
	first := append(net.IP{}, ip...)
	first[3]++
	return &net.IPNet{IP: first, Mask: ipn.Mask}, nil
}

// makeBridge creates the node's CNI bridge with addr before the kubelet
// starts, since the kubelet refuses a node IP no interface has, and the
// bridge plugin would make the bridge only with the first pod. The plugin
// takes the bridge as it finds it: with isGateway false it adds no address
// and switches on no forwarding. Stop removes the bridge, and its address
// and route with it.
func makeBridge(name string, addr *net.IPNet) error {
	for _, args := range [][]string{
		{"link", "add", name, "type", "bridge"},
		{"addr", "add", addr.String(), "dev", name},
		{"link", "set", name, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("the node's bridge: ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}
