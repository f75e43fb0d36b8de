package exampledriver

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localnode"
)

// Target is the embedded node `draconform example-driver` installs on,
// found from the kubeconfig `draconform up --node` wrote: the command
// names a kubeconfig, and what the driver needs is the node's folders, its
// kubelet's log and the API server's address as the node sees it.
type Target struct {
	Node    Node
	Running localnode.RunningNode
	config  *rest.Config
	clients Clients
}

// Locate finds the embedded node of this machine whose kubelet talks to
// the API server of the kubeconfig at path (the one named node, where
// several do).
func Locate(path, node string) (*Target, error) {
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		return nil, err
	}
	rn, err := localnode.FindRunningNode(cfg.Host, node)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("the API server's address %q: %w", cfg.Host, err)
	}
	return &Target{Running: rn, config: cfg, Node: Node{Name: rn.Name, KubeletDir: rn.KubeletDir(), CDIDir: rn.CDIDir(),
		APIServer: net.JoinHostPort(u.Hostname(), u.Port()), KubeletLog: rn.KubeletLog}}, nil
}

// Prepare renders the chart of b for the target's node into workDir, as
// Prepare does, with clients of the target's cluster.
func (t *Target) Prepare(ctx context.Context, b Binaries, workDir string) (*Plan, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(t.config)
	if err != nil {
		return nil, err
	}
	dyn, mapper, err := cluster.DynamicClients(t.config)
	if err != nil {
		return nil, err
	}
	t.clients.Dynamic, t.clients.Mapper = dyn, mapper
	return Prepare(ctx, dc, mapper, b, t.Node, workDir)
}

// Install installs p, which Prepare made, on the target's node, as
// Install does.
func (t *Target) Install(ctx context.Context, p *Plan) (*Installed, error) {
	cs, err := kubernetes.NewForConfig(t.config)
	if err != nil {
		return nil, err
	}
	c := t.clients
	c.Core = cs
	return Install(ctx, c, p, t.Running)
}
