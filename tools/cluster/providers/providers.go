// Package providers builds a cluster.Provider by name, for the CLI and the
// go test entry point alike.
package providers

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/build/prototype/build"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// Config selects a provider and carries each provider's options; a
// provider reads its own struct only.
type Config struct {
	// Name is local (an embedded control plane of real binaries), prototype
	// (the same with the KEP-6406 prototype kube-apiserver and
	// kube-scheduler, see tools/build/prototype, or one of its variants),
	// kubeconfig (any cluster) or kind (kind clusters in Docker, with the
	// test driver).
	Name string
	// OutDir receives the provider's logs and files.
	OutDir string
	Log    io.Writer

	Kubeconfig KubeconfigOptions
	Local      LocalOptions
	Kind       KindOptions
}

// KubeconfigOptions configure the kubeconfig provider.
type KubeconfigOptions struct {
	Path    string
	Context string
	// AsCell declares the gate cell the cluster was set up as.
	AsCell string
	// AllowFakeNodes consents to Node objects with no kubelet there.
	AllowFakeNodes bool
}

// LocalOptions configure the embedded providers: local, and the prototype
// with its variants.
type LocalOptions struct {
	// Version and CacheDir locate the binaries draconform builds.
	Version  string
	CacheDir string
	// BinDir and Bins give the local provider binaries it did not build:
	// a directory, and paths per component (etcd included) that override
	// it. Components neither names run draconform's build of Version.
	BinDir string
	Bins   map[string]string
	// BinEncoding is how those binaries talk and store: "protobuf"
	// (Kubernetes' default) or "json", for an implementation that, like
	// draconform's prototype, extends only the JSON encoding.
	BinEncoding string
	// APIServerFlags are added to kube-apiserver's command line: an audit
	// policy, an admission configuration, as a test of the cluster's
	// safety sets them.
	APIServerFlags []string
	// NodeBuilt says that this run's parent process built the node's
	// binaries into OutDir already: a cell run in a process of its own
	// uses them as they are, since rebuilding them there would rewrite
	// files another cell's node is running.
	NodeBuilt bool
	// Part names the part of a cell split over processes that this
	// process runs ("2of3"); its cell folders take it as a suffix.
	Part string
}

func (o LocalOptions) cellDirSuffix() string {
	if o.Part == "" {
		return ""
	}
	return "-part" + o.Part
}

// HasBinaries says whether o gives the local provider binaries of its own.
func (o LocalOptions) HasBinaries() bool { return o.BinDir != "" || len(o.Bins) > 0 }

// KindOptions configure the kind provider (tools/cluster/kind).
type KindOptions struct {
	// Cluster names the first cluster.
	Cluster string
	// Image is the node image.
	Image string
	// KEPBinDir holds KEP-6406 binaries to run in place of the image's.
	KEPBinDir string
	// Keep leaves the clusters after the run.
	Keep bool
	// NoDriver skips the test driver: cases that need a kubelet skip.
	NoDriver bool
}

// Closer returns a function that closes p, as deferred clean-up does,
// saying on log (if any) what could not be stopped.
func Closer(p cluster.Provider, log io.Writer) func() {
	return func() {
		if err := p.Close(context.Background()); err != nil && log != nil {
			fmt.Fprintf(log, "%s: %v\n", p.Name(), err)
		}
	}
}

// Built is a provider whose binaries are built: New constructs it without
// building or starting anything.
type Built struct {
	name      string
	construct func() (cluster.Provider, error)
}

// New constructs the provider; nothing runs until a cell starts, and its
// Close stops everything it started.
func (b *Built) New() (cluster.Provider, error) {
	p, err := b.construct()
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", b.name, err)
	}
	return p, nil
}

// New builds and constructs the provider c names, for callers that need
// both at once.
func New(ctx context.Context, c Config) (cluster.Provider, error) {
	b, err := Build(ctx, c)
	if err != nil {
		return nil, err
	}
	return b.New()
}

// Build builds, or finds in the cache, what the provider c names runs (the
// Kubernetes binaries, the prototype's patched build, a directory of
// binaries checked), and checks what it needs (a Docker engine for kind).
// It is the only part of making a provider that takes minutes, so callers
// do it first and visibly. The node's container runtime is built when a
// cell first adds a node.
func Build(ctx context.Context, c Config) (*Built, error) {
	switch c.Name {
	case "kubeconfig":
		k := c.Kubeconfig
		return built(c, func() (cluster.Provider, error) {
			return &kubeconfig.Provider{Path: k.Path, Context: k.Context, Cell: k.AsCell, AllowFakeNodes: k.AllowFakeNodes}, nil
		}), nil
	case "local", "":
		if c.Local.HasBinaries() {
			return localBinaries(ctx, c)
		}
		bin, err := k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: c.Local.Version, CacheDir: c.Local.CacheDir, ReleaseURL: k8sbuild.ReleaseURL(), Log: c.Log})
		if err != nil {
			return nil, fmt.Errorf("kubernetes binaries: %w", err)
		}
		return built(c, func() (cluster.Provider, error) {
			return localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: bin, OutDir: c.OutDir, CellDirSuffix: c.Local.cellDirSuffix(), Version: c.Local.Version, Log: c.Log, Node: nodeOptions(c, bin), APIServerExtraFlags: c.Local.APIServerFlags}), nil
		}), nil
	case "kind":
		if err := kind.CheckDocker(ctx, kind.ExecRunner); err != nil {
			return nil, err
		}
		k := c.Kind
		return built(c, func() (cluster.Provider, error) {
			return kind.New(kind.Options{ClusterName: k.Cluster, Image: k.Image, KEPBinDir: k.KEPBinDir,
				KeepCluster: k.Keep, InstallDriver: !k.NoDriver, OutDir: c.OutDir, Log: c.Log})
		}), nil
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

func built(c Config, construct func() (cluster.Provider, error)) *Built {
	return &Built{name: c.Name, construct: construct}
}

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

// prototype runs the KEP-6406 prototype kube-apiserver and kube-scheduler
// with vanilla etcd and kube-controller-manager.
func prototype(ctx context.Context, c Config, v variant) (*Built, error) {
	if v := c.Local.Version; v != "" && v != build.BaseVersion {
		return nil, fmt.Errorf("the prototype is built from Kubernetes %s, not %s", build.BaseVersion, v)
	}
	// The vanilla build (etcd, the controller manager, the kubelet) and the
	// prototype's run side by side where memory allows: two cores stay
	// busy through each one's links and slow packages.
	var vanilla string
	var verr error
	vdone := make(chan struct{})
	go func() {
		defer close(vdone)
		vanilla, verr = k8sbuild.EnsureBinaries(ctx, k8sbuild.BuildOptions{Version: build.BaseVersion, CacheDir: c.Local.CacheDir, ReleaseURL: k8sbuild.ReleaseURL(), Log: c.Log})
	}()
	wait := func() error { <-vdone; return verr }
	if !k8sbuild.ConcurrentBuilds() {
		if err := wait(); err != nil {
			return nil, fmt.Errorf("kubernetes binaries: %w", err)
		}
	}
	_, cacheDir, err := k8sbuild.Dirs("", c.Local.CacheDir)
	if err != nil {
		return nil, err
	}
	opts := build.Options{CacheDir: c.Local.CacheDir, VanillaBinDir: filepath.Join(cacheDir, build.BaseVersion, "bin"), WaitVanilla: wait,
		Mutant: v.Build, Static: v.static, Log: c.Log}
	bin, err := build.Ensure(ctx, opts)
	if werr := wait(); werr != nil {
		return nil, fmt.Errorf("kubernetes binaries: %w", werr)
	}
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
	var base cluster.GateState
	if len(v.Gates) > 0 {
		base = cluster.GateState{}
		var names []string
		for comp, gates := range v.Gates {
			base[cluster.Component(comp)] = maps.Clone(gates)
			for g := range gates {
				if !slices.Contains(names, g) {
					names = append(names, g)
				}
			}
		}
		slices.Sort(names)
		version += "-off-" + strings.Join(names, "-")
	}
	node := nodeOptions(c, vanilla)
	if v.Driver != "" {
		node.DriverMutant, version = v.Driver, version+"-driver-"+v.Driver
	}
	return built(c, func() (cluster.Provider, error) {
		return localcp.New(localcp.Options{BinDir: bin, ReleasedBinDir: vanilla, OutDir: c.OutDir, CellDirSuffix: c.Local.cellDirSuffix(), Version: version, Log: c.Log,
			SchedulerContentType: contentType, StorageMediaType: storage, BaseGates: base, Node: node, APIServerExtraFlags: c.Local.APIServerFlags}), nil
	}), nil
}

// nodeOptions gives an embedded provider its node: the v1.37.2 kubelet,
// whatever the control plane, since KEP-6406 does not touch the kubelet.
func nodeOptions(c Config, vanillaBinDir string) *localcp.NodeBuildOptions {
	return &localcp.NodeBuildOptions{CacheDir: c.Local.CacheDir, KubeletBinDir: vanillaBinDir, OutDir: c.OutDir, Log: c.Log, Reuse: c.Local.NodeBuilt}
}

// Embedded says whether any of cfgs is an embedded provider, whose nodes
// run the container runtime EnsureRuntime builds.
func Embedded(cfgs []Config) bool {
	for _, c := range cfgs {
		switch c.Name {
		case "kubeconfig", "kind":
		default:
			return true
		}
	}
	return false
}

// EnsureRuntime builds (or finds) the embedded node's container runtime
// (containerd, runc, the CNI plugins), so that it can build beside the
// Kubernetes binaries rather than after them.
func EnsureRuntime(ctx context.Context, c Config) error {
	root, cacheDir, err := k8sbuild.Dirs("", c.Local.CacheDir)
	if err != nil {
		return err
	}
	if _, err := localcp.EnsureRuntimeBinaries(ctx, root, cacheDir, false, c.Log); err != nil {
		return fmt.Errorf("the node's container runtime: %w", err)
	}
	return nil
}
