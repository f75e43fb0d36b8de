// Package providertest is a provider as a newcomer would add one: its own
// folder, and one line in the registry (providers.Default). Its clusters
// are names only, with no API server behind them: the test of the registry
// (tools/runner/shards) lists, plans and starts it by the paths the real
// providers take, with its line added to the registry.
package providertest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
)

// Name and Usage are what its registry line gives --provider.
const (
	Name  = "providertest"
	Usage = "a provider with clusters of names only, for the registry's test"
)

// New is the constructor its registry line names: providers.Simple(Name,
// Usage, New).
func New(outDir string, _ io.Writer) (cluster.Provider, error) {
	return &Provider{outDir: outDir}, nil
}

// Provider starts a cluster of its own per cell, as the embedded control
// planes do, and cannot start a cell that sets gates, which it says before
// anything starts.
type Provider struct {
	outDir string
}

// Name implements cluster.Provider.
func (p *Provider) Name() string { return Name }

// Info implements cluster.Provider.
func (p *Provider) Info() cluster.Info {
	return cluster.Info{SeparateCells: true, Discards: true, ChecksGates: true}
}

// Start implements cluster.Provider.
func (p *Provider) Start(ctx context.Context, cell string, gates cluster.GateState) (cluster.Cluster, error) {
	if why, _ := p.CellUnsupported(ctx, gates, nil); why != "" {
		return nil, fmt.Errorf("%s: %s: %w", Name, why, cluster.ErrUnsupported)
	}
	return &Cluster{name: Name + "/" + cell, dir: filepath.Join(p.outDir, cell)}, nil
}

// StartMixed implements cluster.Provider.
func (p *Provider) StartMixed(_ context.Context, _ string, _ cluster.GateState, released []cluster.Component) (cluster.Cluster, error) {
	return nil, cluster.NoMixedCells(Name, released)
}

// CellUnsupported implements cluster.Provider: no gate can be set.
func (p *Provider) CellUnsupported(_ context.Context, gates cluster.GateState, _ []cluster.Component) (string, error) {
	for comp, g := range gates {
		if len(g) > 0 {
			return fmt.Sprintf("%s sets no gates, and the cell sets %s's {%s}", Name, comp, g.Flag()), nil
		}
	}
	return "", nil
}

// GatesRefused implements cluster.Provider: every gate is refused.
func (p *Provider) GatesRefused(_ context.Context, comp cluster.Component, gates cluster.Gates, _ []cluster.Component) (string, error) {
	if len(gates) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%s sets no gates, and a restart of %s asks for {%s}", Name, comp, gates.Flag()), nil
}

// AddNode implements cluster.Provider.
func (p *Provider) AddNode(context.Context, cluster.Cluster) error {
	return cluster.Unsupported(Name, "add a node")
}

// NodeBinaries implements cluster.Provider.
func (p *Provider) NodeBinaries(context.Context) (cluster.NodeBinaries, error) {
	return cluster.NodeBinaries{}, cluster.Unsupported(Name, "build node binaries")
}

// AdoptNodeBinaries implements cluster.Provider.
func (p *Provider) AdoptNodeBinaries(cluster.NodeBinaries) error {
	return cluster.Unsupported(Name, "run node binaries")
}

// RecordBinaryFacts implements cluster.Provider.
func (p *Provider) RecordBinaryFacts(context.Context) error {
	return cluster.Unsupported(Name, "record its binaries' facts")
}

// Credentials implements cluster.Provider.
func (p *Provider) Credentials() (*rest.Config, error) {
	return nil, cluster.Unsupported(Name, "give credentials before it starts a cluster")
}

// Stop implements cluster.Provider.
func (p *Provider) Stop(context.Context, cluster.Cluster) error { return nil }

// Close implements cluster.Provider.
func (p *Provider) Close(context.Context) error { return nil }

// Cluster is a name and a folder.
type Cluster struct {
	name, dir string
}

// Name implements cluster.Cluster.
func (c *Cluster) Name() string { return c.name }

// RESTConfig implements cluster.Cluster: an API server nobody serves.
func (c *Cluster) RESTConfig() *rest.Config { return &rest.Config{Host: "https://127.0.0.1:1"} }

// Gates implements cluster.Cluster.
func (c *Cluster) Gates() cluster.GateState { return cluster.GateState{} }

// TailLog implements cluster.Cluster.
func (c *Cluster) TailLog(context.Context, cluster.Component, int) (string, error) {
	return "", fmt.Errorf("%s: %w", c.name, cluster.ErrNoLog)
}
