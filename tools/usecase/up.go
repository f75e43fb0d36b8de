package usecase

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/privdir"
	"github.com/draconform/draconform/tools/runner"
)

// UpRequest starts one cell's embedded control plane and keeps it until
// interrupted: for exploring with kubectl, or for running the suite against
// it through --provider kubeconfig as any cluster would be.
type UpRequest struct {
	Specs     Specs
	Cell      string
	Providers Providers
	// Out is the folder for logs (default: _output/up-<id>); Node starts a
	// kubelet node too.
	Out  string
	Node bool
	// Ready is told of the control plane once it is up.
	Ready func(UpResult)
}

// UpResult is a control plane up: its name, the folder of its logs, and the
// kubeconfig that reaches it, in a private folder that goes when up stops.
type UpResult struct {
	Name, LogDir, Kubeconfig string
}

// Up starts the control plane, tells r.Ready, and keeps it until ctx ends.
func Up(ctx context.Context, r UpRequest, s Streams) error {
	b, code := r.Specs.loadOr(s)
	if b == nil {
		return said(code)
	}
	cell, ok := b.Cells[r.Cell]
	if !ok {
		return fmt.Errorf("unknown cell %q (cells: %v)", r.Cell, b.CellOrder)
	}
	if r.Providers.Provider == "kubeconfig" {
		return failed(2, fmt.Errorf("starts a control plane; --provider kubeconfig has none to start"))
	}
	if strings.Contains(r.Providers.Provider, ",") {
		return failed(2, fmt.Errorf("starts one implementation's control plane; --provider names %s", r.Providers.Provider))
	}
	dir, err := outputDir(r.Out, "up-"+runner.NewRunID())
	if err != nil {
		return err
	}
	cfg, err := r.Providers.config(r.Providers.Provider, dir, s)
	if err != nil {
		return failed(2, err)
	}
	p, err := providers.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer providers.Closer(p, s.Err)()
	c, err := cluster.StartCell(ctx, p, cell.Name, cluster.CellGates(cell), cluster.CellReleased(cell))
	if err != nil {
		return err
	}
	if r.Node {
		if !p.Info().AddsNodes {
			return fmt.Errorf("provider %s cannot add a node", r.Providers.Provider)
		}
		if err := p.AddNode(ctx, c); err != nil {
			return err
		}
	}
	return keepUp(ctx, c, dir, r.Ready, s)
}

// keepUp writes the cluster's kubeconfig, says where, and waits for ctx.
// The kubeconfig carries the admin token inline: it goes to a folder of
// its own only its owner can read, never to the output folder, which CI
// uploads; it goes when up stops.
func keepUp(ctx context.Context, c cluster.Cluster, dir string, ready func(UpResult), s Streams) error {
	private, err := privdir.Make("draconform-up-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(private)
	kc := filepath.Join(private, "kubeconfig")
	if err := kubeconfig.Write(c.RESTConfig(), kc); err != nil {
		return err
	}
	if ready != nil {
		ready(UpResult{Name: c.Name(), LogDir: dir, Kubeconfig: kc})
	}
	<-ctx.Done()
	fmt.Fprintln(s.Out, "stopping")
	return nil
}
