package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/spf13/pflag"
)

// binariesCmd builds (or finds in the cache) what the embedded providers
// run, so a long cold build can happen before, and apart from, a run.
func binariesCmd(fs *pflag.FlagSet) action {
	var prov providerFlags
	prov.register(fs)
	return func(ctx context.Context, args []string, s Streams) int {
		// The providers write only what a run would (the node's own tools and
		// images); the caches they fill are what this command is for.
		scratch, err := os.MkdirTemp("", "draconform-binaries-")
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
		defer os.RemoveAll(scratch)
		for _, name := range splitList(prov.provider) {
			cfg, err := prov.config(name, scratch, s)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return 2
			}
			p, err := providers.New(ctx, cfg)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return 1
			}
			providers.Closer(p, s.Err)()
			info := p.Info()
			if info.Visits {
				continue // a cluster someone else runs: nothing to build
			}
			// The node's container runtime too, so that a run's first node
			// does not wait for its build.
			if info.NodeBuildKey != "" {
				if _, err := p.NodeBinaries(ctx); err != nil {
					fmt.Fprintln(s.Err, "draconform:", err)
					return 1
				}
			}
			fmt.Fprintf(s.Out, "binaries for %s are ready\n", name)
		}
		return 0
	}
}
