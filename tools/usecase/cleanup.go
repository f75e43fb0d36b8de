package usecase

import (
	"context"
	"os"

	"k8s.io/client-go/dynamic"

	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/runner/sweep"
)

// CleanupRequest deletes what draconform runs left: on the cluster of
// Kubeconfig, the objects of run Run ("" for every run that has ended),
// or with Nodes what a killed run left on this machine. DryRun lists it
// instead.
type CleanupRequest struct {
	Kubeconfig KubeconfigOptions
	Run        string
	DryRun     bool
	Nodes      bool
}

// Cleanup deletes (or lists) it, saying what on s.Out.
func Cleanup(ctx context.Context, r CleanupRequest, s Streams) error {
	if r.Nodes {
		// Where cells make their private folders when run from here.
		return providers.SweepHost(s.Out, os.TempDir(), r.DryRun)
	}
	p := &kubeconfig.Provider{Path: r.Kubeconfig.Path, Context: r.Kubeconfig.Context}
	// No credentials is a command line to fix, as for run: exit 2.
	if _, err := p.Credentials(); err != nil {
		return failed(2, err)
	}
	c, err := p.Start(ctx, "cleanup", nil)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		return err
	}
	_, err = sweep.Sweep(ctx, dyn, sweep.Options{Run: r.Run, DryRun: r.DryRun}, s.Out)
	return err
}
