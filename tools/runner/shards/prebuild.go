package shards

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/draconform/draconform/tools/cluster/localcp"
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
	byKey := map[string]localcp.NodeBinaries{}
	for _, t := range opts.Targets {
		np, ok := t.Provider.(nodeBuilder)
		if !ok {
			continue
		}
		key := np.NodeBuildKey()
		if bins, ok := byKey[key]; ok && key != "" {
			if err := np.AdoptNodeBinaries(bins); err != nil {
				fmt.Fprintln(errs, "draconform:", err)
				return false, 1
			}
			continue
		}
		bins, err := np.NodeBinaries(ctx)
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
		fr, ok := t.Provider.(factsRecorder)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fr.RecordBinaryFacts(ctx); err != nil {
				fmt.Fprintf(errs, "draconform: %s: %v (each cell asks its binaries itself)\n", t.Name, err)
			}
		}()
	}
	wg.Wait()
}

// factsRecorder is a provider that records what its binaries say for the
// run's other processes.
type factsRecorder interface {
	RecordBinaryFacts(context.Context) error
}

// nodeBuilder is a provider whose nodes run binaries the run builds.
type nodeBuilder interface {
	NodeBinaries(context.Context) (localcp.NodeBinaries, error)
	NodeBuildKey() string
	AdoptNodeBinaries(localcp.NodeBinaries) error
}
