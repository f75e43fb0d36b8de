package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/dynamic"

	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/runner/sweep"
)

func cleanupCmd(fs *pflag.FlagSet) action {
	path := fs.String("kubeconfig", "", "cluster to clean (default: $KUBECONFIG, then ~/.kube/config)")
	kctx := fs.String("context", "", "kubeconfig context")
	run := fs.String("run", "", "delete this run's objects, even while it runs (default: every run's that has ended: its Nodes' Leases expired, or it has no Node and created nothing for 10 min)")
	dry := fs.Bool("dry-run", false, "list what would be deleted, delete nothing")
	nodes := fs.Bool("nodes", false, "instead: remove from this machine what a killed run left: its embedded nodes (processes, mounts, cgroups, bridges, state), its control planes' private folders (PKI, admin token, etcd data) and its runs' and kind clusters' private folders (kubeconfigs)")
	return func(ctx context.Context, args []string, s Streams) int {
		if *nodes {
			// Where cells make their private folders when run from here.
			if err := providers.SweepHost(s.Out, os.TempDir(), *dry); err != nil {
				fmt.Fprintln(s.Err, "draconform cleanup:", err)
				return 1
			}
			return 0
		}
		p := &kubeconfig.Provider{Path: *path, Context: *kctx}
		// No credentials is a command line to fix, as for run: exit 2.
		if _, err := p.Credentials(); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 2
		}
		c, err := p.Start(ctx, "cleanup", nil)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 1
		}
		dyn, err := dynamic.NewForConfig(c.RESTConfig())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 1
		}
		if _, err := sweep.Sweep(ctx, dyn, sweep.Options{Run: *run, DryRun: *dry}, s.Out); err != nil {
			fmt.Fprintln(s.Err, "draconform cleanup:", err)
			return 1
		}
		return 0
	}
}
