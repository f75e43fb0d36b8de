// Package providers builds a cluster.Provider by name, for the CLI and the
// go test entry point alike.
package providers

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/k8sbuild"
	"github.com/draconform/draconform/tools/mutants"
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

// Closer returns a function that closes p, as deferred clean-up does,
// saying on log (if any) what could not be stopped.
func Closer(p cluster.Provider, log io.Writer) func() {
	return func() {
		if err := p.Close(context.Background()); err != nil && log != nil {
			fmt.Fprintf(log, "%s: %v\n", p.Name(), err)
		}
	}
}

// New returns the provider; its Close stops everything it started.
func New(ctx context.Context, c Config) (cluster.Provider, error) {
	switch c.Name {
	case "kubeconfig":
		return &kubeconfig.Provider{Path: c.Kubeconfig, Context: c.Context, Cell: c.AsCell}, nil
	case "local", "":
		if c.HasBinaries() {
			return localBinaries(ctx, c)
		}
		bin, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: c.Version, CacheDir: c.CacheDir, Log: c.Log})
		if err != nil {
			return nil, fmt.Errorf("kubernetes binaries: %w", err)
		}
		p := localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: bin, OutDir: c.OutDir, Version: c.Version, Log: c.Log, Node: nodeOptions(c, bin)})
		return p, nil
	case "kind":
		if err := kind.CheckDocker(ctx, kind.ExecRunner); err != nil {
			return nil, err
		}
		p, err := kind.New(kind.Options{ClusterName: c.KindCluster, Image: c.KindImage, KEPBinDir: c.KindKEPBinDir,
			KeepCluster: c.KindKeep, InstallDriver: !c.KindNoDriver, OutDir: c.OutDir, Log: c.Log})
		if err != nil {
			return nil, err
		}
		return p, nil
	case "prototype":
		return prototype(ctx, c, variant{})
	case prototypeStatic:
		return prototype(ctx, c, variant{static: true})
	}
	if m, ok := mutants.Lookup(c.Name); ok && m.Provider == c.Name {
		return prototype(ctx, c, variant{Variant: m.Variant})
	}
	// Builds of the prototype that are not mistakes: one that closes an
	// upstream gap, to run a case's gap.closed path for real.
	if name, ok := strings.CutPrefix(c.Name, "prototype-"); ok {
		if _, err := build.LookupMutant(name); err == nil {
			return prototype(ctx, c, variant{Variant: mutants.Variant{Build: name}})
		}
	}
	return nil, fmt.Errorf("unknown provider %q (local, prototype, "+prototypeStatic+", kubeconfig, kind, or a mutant: %s)", c.Name, strings.Join(mutants.Names(), ", "))
}

// prototypeStatic is the prototype linked statically, as kind's images need
// it: running it here shows the binaries a kind cluster would get behave as
// the measured ones do.
const prototypeStatic = "prototype-static"

// variant is how to run the prototype: as it is, linked statically (the
// kind build, not broken), or as one of the mutants the suite must reject
// (tools/mutants).
type variant struct {
	mutants.Variant
	static bool
}

// prototype runs the KEP-6406 prototype kube-apiserver and kube-scheduler
// with vanilla etcd and kube-controller-manager.
func prototype(ctx context.Context, c Config, v variant) (cluster.Provider, error) {
	if c.Version != "" && c.Version != build.BaseVersion {
		return nil, fmt.Errorf("the prototype is built from Kubernetes %s, not %s", build.BaseVersion, c.Version)
	}
	vanilla, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: build.BaseVersion, CacheDir: c.CacheDir, Log: c.Log})
	if err != nil {
		return nil, fmt.Errorf("kubernetes binaries: %w", err)
	}
	opts := build.Options{CacheDir: c.CacheDir, VanillaBinDir: vanilla, Mutant: v.Build, Static: v.static, Log: c.Log}
	bin, err := build.Ensure(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("prototype binaries: %w", err)
	}
	// JSON end to end: the prototype does not touch the protobuf code,
	// which would silently drop the new field.
	contentType, version := "application/json", build.Version(opts)
	if v.ProtobufScheduler {
		contentType, version = "", version+"-protobuf-scheduler"
	}
	storage := "application/json"
	if v.ProtobufStorage {
		storage, version = "", version+"-protobuf-storage"
	}
	node := nodeOptions(c, vanilla)
	if v.Driver != "" {
		node.DriverMutant, version = v.Driver, version+"-driver-"+v.Driver
	}
	p := localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: vanilla, OutDir: c.OutDir, Version: version, Log: c.Log,
		SchedulerContentType: contentType, StorageMediaType: storage, Node: node})
	return p, nil
}

// nodeOptions gives an embedded provider its node: the v1.37.2 kubelet,
// whatever the control plane, since KEP-6406 does not touch the kubelet.
func nodeOptions(c Config, vanillaBinDir string) *localcp.NodeBuildOptions {
	return &localcp.NodeBuildOptions{CacheDir: c.CacheDir, KubeletBinDir: vanillaBinDir, OutDir: c.OutDir, Log: c.Log}
}
