package kubeconfig

import (
	"context"

	"github.com/draconform/draconform/tools/cluster"
)

// What the contract asks of every provider and a visited cluster does not
// allow, as Info says: each returns an error wrapping
// cluster.ErrUnsupported.

// AddNode implements cluster.Provider: the cluster's nodes are its own.
func (p *Provider) AddNode(context.Context, cluster.Cluster) error {
	return cluster.Unsupported(p.Name(), "add a node to a cluster it visits")
}

// CellUnsupported implements cluster.Provider: Start says which cells the
// cluster runs, from its declared cell alone.
func (p *Provider) CellUnsupported(context.Context, cluster.GateState, []cluster.Component) (string, error) {
	return "", cluster.Unsupported(p.Name(), "ask a visited cluster's binaries about gates")
}

// GatesRefused implements cluster.Provider, as CellUnsupported.
func (p *Provider) GatesRefused(context.Context, cluster.Component, cluster.Gates, []cluster.Component) (string, error) {
	return "", cluster.Unsupported(p.Name(), "ask a visited cluster's binaries about gates")
}

// NodeBinaries implements cluster.Provider: there is no node to build.
func (p *Provider) NodeBinaries(context.Context) (cluster.NodeBinaries, error) {
	return cluster.NodeBinaries{}, cluster.Unsupported(p.Name(), "build node binaries for a cluster it visits")
}

// AdoptNodeBinaries implements cluster.Provider, as NodeBinaries.
func (p *Provider) AdoptNodeBinaries(cluster.NodeBinaries) error {
	return cluster.Unsupported(p.Name(), "run built node binaries on a cluster it visits")
}

// RecordBinaryFacts implements cluster.Provider: the binaries are the
// cluster's, out of reach.
func (p *Provider) RecordBinaryFacts(context.Context) error {
	return cluster.Unsupported(p.Name(), "ask a visited cluster's binaries")
}
