package cli

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
	"github.com/spf13/pflag"
)

// upCmd starts one cell's embedded control plane and keeps it until
// interrupted: for exploring with kubectl, or for running the suite against
// it through --provider kubeconfig as any cluster would be.
func upCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	sf.register(fs)
	cellName := fs.String("cell", "defaults", "the cell whose gates the control plane runs with")
	var prov providerFlags
	prov.register(fs)
	oneProvider(fs, "local", "the implementation whose control plane to start: local (the embedded v1.37.2 binaries), prototype (with the KEP-6406 prototype kube-apiserver and kube-scheduler), prototype-static, or a mutant (see draconform mutation --list)")
	out := fs.String("out", "", "directory for logs (default: _output/up-<id>); the kubeconfig, which holds the admin token, goes to a private folder up prints")
	withNode := fs.Bool("node", false, "also start a kubelet node with containerd and the test driver (root, Linux)")
	return func(ctx context.Context, args []string, s Streams) int {
		b, code := sf.loadOr(s)
		if b == nil {
			return code
		}
		cell, ok := b.Cells[*cellName]
		if !ok {
			fmt.Fprintf(s.Err, "draconform up: unknown cell %q (cells: %v)\n", *cellName, b.CellOrder)
			return 1
		}
		if prov.provider == "kubeconfig" {
			fmt.Fprintln(s.Err, "draconform up: starts a control plane; --provider kubeconfig has none to start")
			return 2
		}
		if strings.Contains(prov.provider, ",") {
			fmt.Fprintf(s.Err, "draconform up: starts one implementation's control plane; --provider names %s\n", prov.provider)
			return 2
		}
		dir, err := outputDir(*out, "up-"+runner.NewRunID())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 1
		}
		cfg, err := prov.config(prov.provider, dir, s)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 2
		}
		p, err := providers.New(ctx, cfg)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 1
		}
		defer providers.Closer(p, s.Err)()
		c, err := cluster.StartCell(ctx, p, cell.Name, cluster.CellGates(cell), cluster.CellReleased(cell))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 1
		}
		if *withNode {
			if !p.Info().AddsNodes {
				fmt.Fprintf(s.Err, "draconform up: provider %s cannot add a node\n", prov.provider)
				return 1
			}
			if err := p.AddNode(ctx, c); err != nil {
				fmt.Fprintln(s.Err, "draconform up:", err)
				return 1
			}
		}
		// The kubeconfig carries the admin token inline: it goes to a
		// folder of its own only its owner can read, never to the output
		// folder, which CI uploads; it goes when up stops.
		private, err := privdir.Make("draconform-up-")
		if err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 1
		}
		defer os.RemoveAll(private)
		kc := filepath.Join(private, "kubeconfig")
		if err := kubeconfig.Write(c.RESTConfig(), kc); err != nil {
			fmt.Fprintln(s.Err, "draconform up:", err)
			return 1
		}
		fmt.Fprintf(s.Out, "control plane %s is up; logs in %s\n  export KUBECONFIG=%s\nCtrl-C stops it.\n", c.Name(), dir, kc)
		<-ctx.Done()
		fmt.Fprintln(s.Out, "stopping")
		return 0
	}
}
