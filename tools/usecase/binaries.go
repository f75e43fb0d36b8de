package usecase

import (
	"context"
	"fmt"
	"os"

	"github.com/draconform/draconform/tools/cluster/providers"
)

// Binaries builds (or finds in the cache) what the embedded providers
// named run, so a long cold build can happen before, and apart from, a
// run.
func Binaries(ctx context.Context, prov Providers, s Streams) error {
	// The providers write only what a run would (the node's own tools and
	// images); the caches they fill are what this command is for.
	scratch, err := os.MkdirTemp("", "draconform-binaries-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	for _, name := range splitList(prov.Provider) {
		cfg, err := prov.config(name, scratch, s)
		if err != nil {
			return failed(2, err)
		}
		p, err := providers.New(ctx, cfg)
		if err != nil {
			return err
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
				return err
			}
		}
		fmt.Fprintf(s.Out, "binaries for %s are ready\n", name)
	}
	return nil
}
