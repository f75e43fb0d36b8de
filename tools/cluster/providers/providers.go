// Package providers builds a cluster.Provider by name, for the CLI and the
// go test entry point alike: the registry (registry.go) lists every
// provider, and each provider's file here maps Config to its options.
package providers

import (
	"context"
	"fmt"
	"io"

	"github.com/draconform/draconform/tools/cluster"
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

func built(c Config, construct func() (cluster.Provider, error)) *Built {
	return &Built{name: c.Name, construct: construct}
}
