package localnode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/cluster/localproc"
	"github.com/draconform/draconform/tools/internal/bintrust"
	"k8s.io/client-go/tools/clientcmd"
)

// RunningNode is a node of this machine's embedded provider that runs in
// another process (draconform up --node), found by its kubelet, so that a
// driver can be put on it from outside: its folders, its containerd.
type RunningNode struct {
	// Name is the Node object's name (the kubelet's --hostname-override).
	Name string
	// Dir is the node's state directory under StateRoot.
	Dir string
	// KubeletPID is its kubelet's process, KubeletLog the file the
	// kubelet writes its log to.
	KubeletPID int
	KubeletLog string
	// Server is the API server's URL as the kubelet's kubeconfig names it.
	Server string
}

func (n RunningNode) layout() nodeLayout { return nodeLayout{dir: n.Dir} }

// KubeletDir is the kubelet's root directory.
func (n RunningNode) KubeletDir() string { return n.layout().kubeletRoot() }

// CDIDir is where the node's containerd reads CDI specs.
func (n RunningNode) CDIDir() string { return n.layout().cdi() }

// kubeletProcess is what a kubelet's command line says of its node.
type kubeletProcess struct{ name, rootDir, kubeconfig string }

// parseKubeletArgs reads the command line of a node's kubelet (see
// node.startKubelet); ok is false for any other process.
func parseKubeletArgs(args []string) (kubeletProcess, bool) {
	if len(args) == 0 || filepath.Base(args[0]) != "kubelet" {
		return kubeletProcess{}, false
	}
	var k kubeletProcess
	for _, a := range args[1:] {
		name, value, _ := strings.Cut(a, "=")
		switch name {
		case "--hostname-override":
			k.name = value
		case "--root-dir":
			k.rootDir = value
		case "--kubeconfig":
			k.kubeconfig = value
		}
	}
	// Only the kubelets of StateRoot's nodes: not a kind node's, nor
	// any other kubelet of the machine.
	dir := filepath.Dir(k.rootDir)
	if k.name == "" || k.kubeconfig == "" || filepath.Dir(dir) != StateRoot || !nodeIDPattern.MatchString(filepath.Base(dir)) {
		return kubeletProcess{}, false
	}
	return k, true
}

// RunningNodes lists the embedded nodes of this machine whose kubelets talk
// to the API server at server (a URL, as a kubeconfig has it).
func RunningNodes(server string) ([]RunningNode, error) {
	procs, err := localproc.OtherProcesses()
	if err != nil {
		return nil, err
	}
	var out []RunningNode
	for _, p := range procs {
		k, ok := parseKubeletArgs(p.Args)
		if !ok {
			continue
		}
		cfg, err := clientcmd.LoadFromFile(k.kubeconfig)
		if err != nil {
			continue // the node is stopping
		}
		ctx := cfg.Contexts[cfg.CurrentContext]
		if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
			continue
		}
		kubeletServer := cfg.Clusters[ctx.Cluster].Server
		if !sameServer(kubeletServer, server) {
			continue
		}
		log, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", p.PID))
		out = append(out, RunningNode{Name: k.name, Dir: filepath.Dir(k.rootDir), KubeletPID: p.PID, KubeletLog: log, Server: kubeletServer})
	}
	return out, nil
}

func sameServer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// ctr runs containerd's client against the node's containerd, in the
// namespace of the CRI plugin (and so of the kubelet).
func (n RunningNode) ctr(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	l := n.layout()
	argv := append([]string{"--address", l.socket(), "--namespace", "k8s.io"}, args...)
	var stderr bytes.Buffer
	cmd, err := bintrust.Command(ctx, filepath.Join(l.bin(), "ctr"), argv...)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.Name, err)
	}
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ctr %s on node %s: %w: %s", strings.Join(args, " "), n.Name, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Import imports an image archive into the node's containerd, as the
// node's own images are imported when it starts.
func (n RunningNode) Import(ctx context.Context, archive string) error {
	_, err := n.ctr(ctx, "images", "import", archive)
	return err
}

// Remove removes an image from the node's containerd, and waits for its
// content to be collected.
func (n RunningNode) Remove(ctx context.Context, ref string) error {
	_, err := n.ctr(ctx, "images", "rm", "--sync", ref)
	return err
}

// Has says whether the node's containerd has an image of that name.
func (n RunningNode) Has(ctx context.Context, ref string) (bool, error) {
	out, err := n.ctr(ctx, "images", "ls", "--quiet", "name=="+ref)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// FindRunningNode is the one embedded node of this machine whose kubelet
// talks to the API server at server, or the one named name among them.
func FindRunningNode(server, name string) (RunningNode, error) {
	nodes, err := RunningNodes(server)
	if err != nil {
		return RunningNode{}, err
	}
	return pickNode(nodes, server, name)
}

func pickNode(nodes []RunningNode, server, name string) (RunningNode, error) {
	var names []string
	for _, n := range nodes {
		if name != "" && n.Name == name {
			return n, nil
		}
		names = append(names, n.Name)
	}
	switch {
	case len(nodes) == 0:
		return RunningNode{}, fmt.Errorf("no embedded node of this machine talks to the API server at %s (start one with draconform up --node; a node of another machine, or of kind, is not reachable from here)", server)
	case name != "":
		return RunningNode{}, fmt.Errorf("no embedded node %s talks to the API server at %s; its nodes: %s", name, server, strings.Join(names, ", "))
	case len(nodes) > 1:
		return RunningNode{}, fmt.Errorf("%d embedded nodes talk to the API server at %s (%s): name one with --node", len(nodes), server, strings.Join(names, ", "))
	}
	return nodes[0], nil
}
