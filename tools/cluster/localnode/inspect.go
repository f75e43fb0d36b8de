package localnode

import (
	"os"
	"strings"
)

// What a node shows of itself to the control plane's tests of it
// (tools/cluster/localcp starts a node beside a real control plane), and
// to a person looking for what a run left.

// Name is the name of the node's Node object.
func (n *Node) Name() string { return n.name }

// ID names the node's folder, cgroups, CNI network and bridge.
func (n *Node) ID() string { return n.id }

// Dir is the node's folder under StateRoot.
func (n *Node) Dir() string { return n.layout.dir }

// Bridge is the node's CNI bridge.
func (n *Node) Bridge() string { return n.bridge }

// Leftovers lists what of the node is still on the machine; empty after a
// clean stop.
func (n *Node) Leftovers() []string { return n.leftovers() }

// Kill ends the node's kubelet and containerd at once, as a SIGKILL of
// the draconform that started them does (they die with it); what they
// started stays, and so does the lock on the node's folder until Release.
func (n *Node) Kill() {
	n.kubelet.Stop(0)
	n.containerd.Stop(0)
}

// Release lets go of the node's folder without removing anything, as the
// death of its draconform does: what a killed run leaves, for `cleanup
// --nodes` to find.
func (n *Node) Release() {
	if n.lock != nil {
		n.lock.Close()
		n.lock = nil
	}
}

// RemoveLogLinks removes the kubelet's links to container logs that point
// into dir, and lists them.
func RemoveLogLinks(dir string) []string { return removeLogLinks(dir) }

// OrphanGrace is how young a node folder is left alone by clean-up
// whatever its lock says.
const OrphanGrace = nodeGrace

// HostKernelSettings reads the host's kernel settings a kubelet writes, as
// name=value.
func HostKernelSettings() map[string]string {
	out := map[string]string{}
	for _, name := range kubeletKernelSettings {
		if v, err := os.ReadFile(hostKernel.path(name)); err == nil {
			out[name] = strings.TrimSpace(string(v))
		}
	}
	return out
}

// Folders lists the node folders on this machine, of this process or any
// other.
func Folders() []string {
	entries, _ := os.ReadDir(StateRoot)
	var out []string
	for _, e := range entries {
		if e.IsDir() && IsID(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}
