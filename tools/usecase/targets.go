package usecase

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/runner"
)

// targets builds what every provider named by --provider runs, all of it
// before any provider is made, so that a build that fails costs no cluster;
// each provider writes under its own folder of outDir so their cells' logs
// never mix. It returns the targets, their providers' names, and what
// stops them all.
func (f *Providers) targets(ctx context.Context, outDir string, s Streams) ([]runner.Target, []string, func(), error) {
	cfgs, targetNames, err := f.configs(outDir, s)
	if err != nil {
		return nil, nil, nil, err
	}
	built, err := buildAll(ctx, cfgs)
	if err != nil {
		return nil, nil, nil, err
	}
	var targets []runner.Target
	var names []string
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	for i, cfg := range cfgs {
		p, err := built[i].New()
		if err != nil {
			stopAll()
			return nil, nil, nil, err
		}
		stops = append(stops, providers.Closer(p, s.Err))
		targets = append(targets, runner.Target{Name: targetNames[i], Provider: p})
		names = append(names, cfg.Name)
	}
	return targets, names, stopAll, nil
}

// configs are the providers' configurations, each writing under its
// target's folder of outDir, and the targets' names.
func (f *Providers) configs(outDir string, s Streams) ([]providers.Config, []string, error) {
	var cfgs []providers.Config
	var names []string
	for _, name := range splitList(f.Provider) {
		cfg, err := f.config(name, "", s)
		if err != nil {
			return nil, nil, err
		}
		target := name
		if cfg.Local.HasBinaries() {
			if name != "local" {
				return nil, nil, fmt.Errorf("--bin-dir and --bin apply to --provider local, not %s", name)
			}
			target = providers.LocalBinariesTarget
		}
		cfg.OutDir = filepath.Join(outDir, target)
		cfgs = append(cfgs, cfg)
		names = append(names, target)
	}
	return cfgs, names, nil
}

// buildAll builds what each configuration runs. The builds are
// independent; side by side (with the node's runtime) only where
// k8sbuild.ConcurrentBuilds says so, since one after another they share
// the build cache.
func buildAll(ctx context.Context, cfgs []providers.Config) ([]*providers.Built, error) {
	built := make([]*providers.Built, len(cfgs))
	errs := make([]error, len(cfgs)+1)
	var wg sync.WaitGroup
	concurrent := k8sbuild.ConcurrentBuilds()
	if concurrent && providers.Embedded(cfgs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[len(cfgs)] = providers.EnsureRuntime(ctx, cfgs[0])
		}()
	}
	for i, cfg := range cfgs {
		if !concurrent {
			built[i], errs[i] = providers.Build(ctx, cfg)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			built[i], errs[i] = providers.Build(ctx, cfg)
		}()
	}
	wg.Wait()
	return built, errors.Join(errs...)
}
