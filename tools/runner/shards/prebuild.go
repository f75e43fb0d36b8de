package shards

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/runner"
)

// ensureNodeBinaries builds the node's container runtime before the shards
// start, so that they do not queue on its build lock one after another.
func ensureNodeBinaries(ctx context.Context, opts runner.Options, errs io.Writer) (built bool, code int) {
	kubelet := false
	for _, c := range opts.Plan {
		kubelet = kubelet || c.Case.Requires.Kubelet()
	}
	if !kubelet {
		return false, 0
	}
	// Implementations differ in the control plane, not the node: one
	// build serves every target whose node runs the same binaries.
	byKey := map[string]cluster.NodeBinaries{}
	for _, t := range opts.Targets {
		key := t.Provider.Info().NodeBuildKey
		if key == "" {
			continue
		}
		if bins, ok := byKey[key]; ok {
			if err := t.Provider.AdoptNodeBinaries(bins); err != nil {
				fmt.Fprintln(errs, "draconform:", err)
				return false, 1
			}
			continue
		}
		bins, err := t.Provider.NodeBinaries(ctx)
		if err != nil {
			fmt.Fprintln(errs, "draconform:", err)
			return false, 1
		}
		byKey[key] = bins
		built = true
	}
	return built, 0
}

// recordBinaryFacts has every provider that can ask its binaries for their
// versions and gates once, for all the run's processes, do so, the
// providers at once. Failing only costs the cells the time to ask again.
func recordBinaryFacts(ctx context.Context, opts runner.Options, errs io.Writer) {
	var wg sync.WaitGroup
	for _, t := range opts.Targets {
		if !t.Provider.Info().SharesFacts {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := t.Provider.RecordBinaryFacts(ctx); err != nil {
				fmt.Fprintf(errs, "draconform: %s: %v (each cell asks its binaries itself)\n", t.Name, err)
			}
		}()
	}
	wg.Wait()
}
