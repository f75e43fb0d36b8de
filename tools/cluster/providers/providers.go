// Package providers builds a cluster.Provider by name, for the CLI and the
// go test entry point alike.
package providers

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/draconform/draconform/drivers/mutant"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/prototype/build"
)

// Config selects and configures a provider.
type Config struct {
	// Name is local (an embedded control plane of real binaries), prototype
	// (the same with the KEP-6406 prototype kube-apiserver and
	// kube-scheduler, see tools/prototype), kubeconfig (any cluster) or
	// kind (kind clusters in Docker, with the test driver).
	Name       string
	Kubeconfig string
	Context    string
	// AsCell declares the gate cell a kubeconfig cluster was set up as.
	AsCell string
	// Version and CacheDir locate the local provider's binaries.
	Version  string
	CacheDir string
	OutDir   string
	Log      io.Writer
	// Kind* configure the kind provider (tools/cluster/kind): the first
	// cluster's name, the node image, KEP-6406 binaries to run in it,
	// whether clusters outlive the run, and whether to skip the test driver.
	KindCluster   string
	KindImage     string
	KindKEPBinDir string
	KindKeep      bool
	KindNoDriver  bool
	// BinDir and Bins give the local provider binaries it did not build:
	// a directory, and paths per component (etcd included) that override
	// it. Components neither names run draconform's build of Version.
	BinDir string
	Bins   map[string]string
	// BinEncoding is how those binaries talk and store: "protobuf"
	// (Kubernetes' default) or "json", for an implementation that, like
	// draconform's prototype, extends only the JSON encoding.
	BinEncoding string
}

// HasBinaries says whether c gives the local provider binaries of its own.
func (c Config) HasBinaries() bool { return c.BinDir != "" || len(c.Bins) > 0 }

// New returns the provider and a function that stops everything it started.
func New(ctx context.Context, c Config) (cluster.Provider, func(), error) {
	switch c.Name {
	case "kubeconfig":
		return &kubeconfig.Provider{Path: c.Kubeconfig, Context: c.Context, Cell: c.AsCell}, func() {}, nil
	case "local", "":
		if c.HasBinaries() {
			return localBinaries(ctx, c)
		}
		bin, err := localcp.EnsureBinaries(ctx, localcp.BuildOptions{Version: c.Version, CacheDir: c.CacheDir, Log: c.Log})
		if err != nil {
			return nil, nil, fmt.Errorf("kubernetes binaries: %w", err)
		}
		p := localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: bin, OutDir: c.OutDir, Version: c.Version, Log: c.Log, Node: nodeOptions(c, bin)})
		return p, func() { _ = p.StopAll(context.Background()) }, nil
	case "kind":
		if err := kind.CheckDocker(ctx, kind.ExecRunner); err != nil {
			return nil, nil, err
		}
		p, err := kind.New(kind.Options{ClusterName: c.KindCluster, Image: c.KindImage, KEPBinDir: c.KindKEPBinDir,
			KeepCluster: c.KindKeep, InstallDriver: !c.KindNoDriver, OutDir: c.OutDir, Log: c.Log})
		if err != nil {
			return nil, nil, err
		}
		return p, func() {
			if err := p.Close(context.Background()); err != nil && c.Log != nil {
				fmt.Fprintln(c.Log, err)
			}
		}, nil
	case "prototype":
		return prototype(ctx, c, variant{})
	case protobufScheduler:
		return prototype(ctx, c, variant{protobufScheduler: true})
	case protobufStorage:
		return prototype(ctx, c, variant{protobufStorage: true})
	case prototypeStatic:
		return prototype(ctx, c, variant{static: true})
	}
	if name, ok := strings.CutPrefix(c.Name, "prototype-"); ok {
		if _, err := build.LookupMutant(name); err == nil {
			return prototype(ctx, c, variant{mutant: name})
		}
	}
	if name, ok := strings.CutPrefix(c.Name, driverMutantPrefix); ok {
		if _, known := mutant.Known[name]; known {
			return prototype(ctx, c, variant{driverMutant: name})
		}
	}
	return nil, nil, fmt.Errorf("unknown provider %q (local, prototype, "+prototypeStatic+", kubeconfig, kind, or a mutant: %s)", c.Name, strings.Join(mutantNames(), ", "))
}

// protobufScheduler is the one mutant that is a way of running the
// prototype rather than a build of its own.
const protobufScheduler = "prototype-protobuf-scheduler"

// protobufStorage runs the prototype's API server with its default storage
// encoding, protobuf, which the prototype does not extend: the field is
// lost on write although the gate is on. An independently written
// prototype run this way is how the gap it shows was found.
const protobufStorage = "prototype-protobuf-storage"

// prototypeStatic is the prototype linked statically, as kind's images need
// it: running it here shows the binaries a kind cluster would get behave as
// the measured ones do.
const prototypeStatic = "prototype-static"

// Mutants are the known-broken implementations the suite must reject, by
// provider name, with the mistake each makes: every build mutant of the
// prototype (tools/prototype/build.Mutants), then the protobuf scheduler.
func Mutants() []Mutant {
	var out []Mutant
	for _, m := range build.Mutants() {
		out = append(out, Mutant{Provider: "prototype-" + m.Name, Mistake: m.Mistake, Equivalent: m.Equivalent})
	}
	out = append(out, Mutant{Provider: protobufScheduler, Mistake: "scheduler reads API objects as protobuf, which the prototype does not extend: every synthesized request loses its capacity"})
	out = append(out, Mutant{Provider: protobufStorage, Mistake: "API server stores objects as protobuf, its default, which the prototype does not extend: the field is lost on write with the gate on"})
	for _, name := range mutant.Names() {
		out = append(out, Mutant{Provider: driverMutantPrefix + name, Mistake: mutant.Known[name]})
	}
	return out
}

// driverMutantPrefix names the prototype run with a broken build of the
// test driver on its node: the kubelet half of the suite must catch it.
const driverMutantPrefix = "prototype-driver-"

func mutantNames() []string {
	var names []string
	for _, m := range Mutants() {
		names = append(names, m.Provider)
	}
	return names
}

// Mutant is one known-broken implementation.
type Mutant struct{ Provider, Mistake, Equivalent string }

// variant selects a known-broken way to run the prototype, to show the
// suite catches it: a build mutant, or the scheduler reading API objects as
// protobuf (which the prototype does not extend, so the field is lost).
type variant struct {
	mutant            string
	protobufScheduler bool
	protobufStorage   bool
	static            bool // not broken: the kind build (build.Options.Static)
	driverMutant      string
}

// prototype runs the KEP-6406 prototype kube-apiserver and kube-scheduler
// with vanilla etcd and kube-controller-manager.
func prototype(ctx context.Context, c Config, v variant) (cluster.Provider, func(), error) {
	if c.Version != "" && c.Version != build.BaseVersion {
		return nil, nil, fmt.Errorf("the prototype is built from Kubernetes %s, not %s", build.BaseVersion, c.Version)
	}
	vanilla, err := localcp.EnsureBinaries(ctx, localcp.BuildOptions{Version: build.BaseVersion, CacheDir: c.CacheDir, Log: c.Log})
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes binaries: %w", err)
	}
	opts := build.Options{CacheDir: c.CacheDir, VanillaBinDir: vanilla, Mutant: v.mutant, Static: v.static, Log: c.Log}
	bin, err := build.Ensure(ctx, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("prototype binaries: %w", err)
	}
	// JSON end to end: the prototype does not touch the protobuf code,
	// which would silently drop the new field.
	contentType, version := "application/json", build.Version(opts)
	if v.protobufScheduler {
		contentType, version = "", version+"-protobuf-scheduler"
	}
	storage := "application/json"
	if v.protobufStorage {
		storage, version = "", version+"-protobuf-storage"
	}
	node := nodeOptions(c, vanilla)
	if v.driverMutant != "" {
		node.DriverMutant, version = v.driverMutant, version+"-driver-"+v.driverMutant
	}
	p := localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: vanilla, OutDir: c.OutDir, Version: version, Log: c.Log,
		SchedulerContentType: contentType, StorageMediaType: storage, Node: node})
	return p, func() { _ = p.StopAll(context.Background()) }, nil
}

// nodeOptions gives an embedded provider its node: the v1.37.2 kubelet,
// whatever the control plane, since KEP-6406 does not touch the kubelet.
func nodeOptions(c Config, vanillaBinDir string) *localcp.NodeBuildOptions {
	return &localcp.NodeBuildOptions{CacheDir: c.CacheDir, KubeletBinDir: vanillaBinDir, OutDir: c.OutDir, Log: c.Log}
}
