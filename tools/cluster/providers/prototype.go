package providers

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/build/prototype/build"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// prototypeStatic is the prototype linked statically, as kind's images need
// it: running it here shows the binaries a kind cluster would get behave as
// the measured ones do.
const prototypeStatic = "prototype-static"

// variant is how to run the prototype: as it is, linked statically (the
// kind build, not broken), or as one of the mutants the suite must reject
// (tools/build/mutants).
type variant struct {
	mutants.Variant
	static bool
}

// prototypeFamily names the prototype's mutants, then the builds of it
// that are no mistakes (one that closes an upstream gap, to run a case's
// gap.closed path for real).
func prototypeFamily() []string {
	names := slices.Clone(mutants.Names())
	for _, m := range append(build.Mutants(), build.Variants()...) {
		names = append(names, "prototype-"+m.Name)
	}
	return names
}

// buildPrototype builds the prototype, or the variant of it c names.
func buildPrototype(ctx context.Context, c Config) (*Built, error) {
	switch c.Name {
	case "prototype":
		return prototype(ctx, c, variant{})
	case prototypeStatic:
		return prototype(ctx, c, variant{static: true})
	}
	if m, ok := mutants.Lookup(c.Name); ok && m.Provider == c.Name {
		return prototype(ctx, c, variant{Variant: m.Variant})
	}
	if name, ok := strings.CutPrefix(c.Name, "prototype-"); ok {
		if _, err := build.LookupMutant(name); err == nil {
			return prototype(ctx, c, variant{Variant: mutants.Variant{Build: name}})
		}
	}
	return nil, fmt.Errorf("unknown provider %q (a variant of the prototype: %s)", c.Name, strings.Join(mutants.Names(), ", "))
}

// prototype runs the KEP-6406 prototype kube-apiserver and kube-scheduler
// with vanilla etcd and kube-controller-manager.
func prototype(ctx context.Context, c Config, v variant) (*Built, error) {
	if v := c.Local.Version; v != "" && v != build.BaseVersion {
		return nil, fmt.Errorf("the prototype is built from Kubernetes %s, not %s", build.BaseVersion, v)
	}
	bin, vanilla, opts, err := prototypeBinaries(ctx, c, v)
	if err != nil {
		return nil, err
	}
	o := prototypeOptions(v, build.Version(opts))
	o.BinDir, o.ReleasedBinDir, o.OutDir, o.CellDirSuffix = bin, vanilla, c.OutDir, c.Local.cellDirSuffix()
	o.Log, o.APIServerExtraFlags = c.Log, c.Local.APIServerFlags
	o.Node = nodeOptions(c, vanilla)
	if v.Driver != "" {
		o.Node.DriverMutant, o.Version = v.Driver, o.Version+"-driver-"+v.Driver
	}
	return built(c, func() (cluster.Provider, error) { return localcp.New(o), nil }), nil
}

// prototypeBinaries builds the vanilla binaries (etcd, the controller
// manager, the kubelet) and the prototype's, side by side where memory
// allows: two cores stay busy through each one's links and slow packages.
func prototypeBinaries(ctx context.Context, c Config, v variant) (bin, vanilla string, opts build.Options, err error) {
	var verr error
	vdone := make(chan struct{})
	go func() {
		defer close(vdone)
		vanilla, verr = kubernetesBinaries(ctx, c, build.BaseVersion)
	}()
	wait := func() error { <-vdone; return verr }
	if !k8sbuild.ConcurrentBuilds() {
		if err := wait(); err != nil {
			return "", "", opts, fmt.Errorf("kubernetes binaries: %w", err)
		}
	}
	_, cacheDir, err := k8sbuild.Dirs("", c.Local.CacheDir)
	if err != nil {
		return "", "", opts, err
	}
	opts = build.Options{CacheDir: c.Local.CacheDir, VanillaBinDir: filepath.Join(cacheDir, build.BaseVersion, "bin"), WaitVanilla: wait,
		Mutant: v.Build, Static: v.static, Log: c.Log}
	bin, err = build.Ensure(ctx, opts)
	if werr := wait(); werr != nil {
		return "", "", opts, fmt.Errorf("kubernetes binaries: %w", werr)
	}
	if err != nil {
		return "", "", opts, fmt.Errorf("prototype binaries: %w", err)
	}
	return bin, vanilla, opts, nil
}

// prototypeOptions are how v runs: its encodings and the gates it turns
// off, each named in its version.
func prototypeOptions(v variant, version string) localcp.Options {
	// JSON end to end: the prototype does not touch the protobuf code,
	// which would silently drop the new field.
	o := localcp.Options{SchedulerContentType: "application/json", StorageMediaType: "application/json"}
	if v.ProtobufScheduler {
		o.SchedulerContentType, version = "", version+"-protobuf-scheduler"
	}
	if v.ProtobufStorage {
		o.StorageMediaType, version = "", version+"-protobuf-storage"
	}
	if len(v.Gates) > 0 {
		o.BaseGates = cluster.GateState{}
		var names []string
		for comp, gates := range v.Gates {
			o.BaseGates[cluster.Component(comp)] = maps.Clone(gates)
			for g := range gates {
				if !slices.Contains(names, g) {
					names = append(names, g)
				}
			}
		}
		slices.Sort(names)
		version += "-off-" + strings.Join(names, "-")
	}
	o.Version = version
	return o
}
