package kind

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
)

// What the contract asks of every provider and kind does not do, as Info
// says: each returns an error wrapping cluster.ErrUnsupported.

// StartMixed implements cluster.Provider: a node image runs one release.
func (p *Provider) StartMixed(_ context.Context, _ string, _ cluster.GateState, released []cluster.Component) (cluster.Cluster, error) {
	return nil, cluster.NoMixedCells(p.Name(), released)
}

// AddNode implements cluster.Provider: kind's clusters have their nodes.
func (p *Provider) AddNode(context.Context, cluster.Cluster) error {
	return cluster.Unsupported(p.Name(), "add a node (its clusters start with theirs)")
}

// CellUnsupported implements cluster.Provider: kind learns its gates by
// starting a cluster.
func (p *Provider) CellUnsupported(context.Context, cluster.GateState, []cluster.Component) (string, error) {
	return "", cluster.Unsupported(p.Name(), "ask its binaries about gates without a cluster")
}

// GatesRefused implements cluster.Provider, as CellUnsupported.
func (p *Provider) GatesRefused(context.Context, cluster.Component, cluster.Gates, []cluster.Component) (string, error) {
	return "", cluster.Unsupported(p.Name(), "ask its binaries about gates without a cluster")
}

// NodeBinaries implements cluster.Provider: the node image holds them.
func (p *Provider) NodeBinaries(context.Context) (cluster.NodeBinaries, error) {
	return cluster.NodeBinaries{}, cluster.Unsupported(p.Name(), "build node binaries (its node image holds them)")
}

// AdoptNodeBinaries implements cluster.Provider, as NodeBinaries.
func (p *Provider) AdoptNodeBinaries(cluster.NodeBinaries) error {
	return cluster.Unsupported(p.Name(), "run built node binaries (its node image holds them)")
}

// RecordBinaryFacts implements cluster.Provider: kind reads its gates
// from a running cluster, once per process.
func (p *Provider) RecordBinaryFacts(context.Context) error {
	return cluster.Unsupported(p.Name(), "record its binaries' facts before a cluster runs")
}

// Credentials implements cluster.Provider: no cluster exists before Start.
func (p *Provider) Credentials() (*rest.Config, error) {
	return nil, cluster.Unsupported(p.Name(), "give credentials before it starts a cluster")
}
