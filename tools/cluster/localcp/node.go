package localcp

import (
	"context"
	"fmt"
	"os"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localnode"
)

// The control plane's side of a node (tools/cluster/localnode): building
// what it runs, once a provider, and adding one to a cell.

// AddNode starts a kubelet node beside c's control plane, with the test
// driver on it. Its binaries are built on first use, so a run without
// kubelet cases never builds a container runtime.
func (p *Provider) AddNode(ctx context.Context, c cluster.Cluster) error {
	lc, ok := c.(*Cluster)
	if !ok {
		return fmt.Errorf("local: AddNode given a %T, not a local cluster", c)
	}
	if err := localnode.HostSupport(); err != nil {
		return err
	}
	bins, err := p.NodeBinaries(ctx) // says so, unsupported, where the provider has no node
	if err != nil {
		return fmt.Errorf("local: the node's binaries: %w", err)
	}
	return lc.addNode(ctx, bins)
}

// NodeBinaries builds (once) and returns what a node runs.
func (p *Provider) NodeBinaries(ctx context.Context) (localnode.Binaries, error) {
	p.nodeMu.Lock()
	defer p.nodeMu.Unlock()
	if p.nodeBins != nil {
		return *p.nodeBins, nil
	}
	if p.opts.Node == nil {
		return localnode.Binaries{}, fmt.Errorf("local: this provider was set up without a node: %w", cluster.ErrUnsupported)
	}
	o := *p.opts.Node
	if o.Log == nil {
		o.Log = p.log
	}
	bins, err := localnode.EnsureBinaries(ctx, o)
	if err != nil {
		return localnode.Binaries{}, err
	}
	p.nodeBins = &bins
	return bins, nil
}

// nodeBuildKey says which node binaries the provider's node runs: two
// providers of a run with equal keys run the same, so one build serves
// both (AdoptNodeBinaries). Empty when the provider has no node.
func (p *Provider) nodeBuildKey() string {
	if p.opts.Node == nil {
		return ""
	}
	return p.opts.Node.KubeletBinDir + "\x00" + p.opts.Node.DriverMutant
}

// AdoptNodeBinaries makes the provider's nodes run bins, built by another
// provider of this run with an equal NodeBuildKey, instead of building
// them again; it records them in the provider's output folder, where the
// run's cells look for them (localnode.BuildOptions.Reuse).
func (p *Provider) AdoptNodeBinaries(bins localnode.Binaries) error {
	p.nodeMu.Lock()
	defer p.nodeMu.Unlock()
	if p.opts.Node == nil {
		return fmt.Errorf("local: this provider was set up without a node: %w", cluster.ErrUnsupported)
	}
	if err := os.MkdirAll(p.opts.Node.OutDir, 0o755); err != nil {
		return fmt.Errorf("local: the node's folder: %w", err)
	}
	if err := localnode.WriteBuiltRecord(p.opts.Node.OutDir, bins); err != nil {
		return err
	}
	p.nodeBins = &bins
	return nil
}

// addNode starts a kubelet node beside the control plane. On failure
// nothing of the node stays on the machine.
func (c *Cluster) addNode(ctx context.Context, bins localnode.Binaries) error {
	c.mu.Lock()
	if c.node != nil {
		c.mu.Unlock()
		return fmt.Errorf("local: cell %s has a node already", c.cell)
	}
	n := localnode.New(c.cell, c.dir, c.log, c.trust)
	c.node = n
	c.mu.Unlock()
	cp := localnode.ControlPlane{APIPort: c.apiPort, Admin: c.RESTConfig(), CACert: c.pki.CACert, CAPEM: c.pki.CAPEM,
		Certificate: clientCertTemplate, Issue: c.pki.issue}
	if err := n.Start(ctx, bins, cp); err != nil {
		if serr := n.Stop(); serr != nil {
			c.log.Printf("local: %v", serr)
		}
		c.mu.Lock()
		c.node = nil
		c.started = append(c.started, n.Started()...)
		c.mu.Unlock()
		return fmt.Errorf("local: starting a node for cell %s: %w", c.cell, err)
	}
	return nil
}
