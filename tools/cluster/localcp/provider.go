// Package localcp is the embedded provider: it runs a real Kubernetes control
// plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager) as
// plain child processes on loopback, one control plane per gate cell, with no
// containers and no kubelet; a cell whose cases need pods to run gets a
// kubelet node beside it (tools/cluster/localnode).
package localcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/internal/bintrust"
)

// Etcd names etcd's log for TailLog; it is not a gated component.
const Etcd cluster.Component = "etcd"

// Options configures a Provider.
type Options struct {
	BinDir string // holds etcd, kube-apiserver, kube-scheduler, kube-controller-manager
	// CellDirSuffix is added to each cell's folder name in OutDir: a cell
	// split over processes gives each part a folder of its own, since a
	// part's scheduler would read another's config from a shared one.
	CellDirSuffix string
	// Binaries names a binary per component (etcd included) in place of
	// BinDir's: a contributor's or a vendor's build beside released ones.
	Binaries map[cluster.Component]string
	// Versions are what binaries already checked (CheckBinary) reported,
	// by path, so that no binary is asked twice.
	Versions map[string]string
	// ReleasedBinDir holds the released Kubernetes binaries the
	// implementation builds on: a cell that lists a component in released:
	// runs it from here (the version skew of an upgrade, an API server
	// that knows the KEP beside a scheduler that predates it). Empty: this
	// provider cannot run such cells.
	ReleasedBinDir string
	OutDir         string // run output; each cell writes its logs under OutDir/<cell>/
	// StateDir is where each cell's private folder (PKI, kubeconfig, etcd
	// data; mode 0700, removed when the cell stops) is made; empty is the
	// system's temporary folder. Never OutDir: reports are shared.
	StateDir string
	// Version names the binaries in cluster names, e.g. "v1.37.2".
	Version             string
	APIServerExtraFlags []string
	// SchedulerContentType is the scheduler's clientConnection.contentType;
	// empty keeps the binary default (protobuf).
	SchedulerContentType string
	// StorageMediaType is kube-apiserver --storage-media-type; empty keeps the
	// default.
	StorageMediaType string
	// BaseGates are set on each component in every cell, beneath the
	// cell's own gates (which win where both name a gate): gates of other
	// features a legal variant turns off. Gates() reports the cell's alone.
	BaseGates cluster.GateState
	// Node says how to build a node's binaries; nil, and AddNode says this
	// provider has none.
	Node *localnode.BuildOptions
	Log  io.Writer // progress lines; nil discards them
}

// Provider starts one local control plane per cell.
type Provider struct {
	opts Options
	log  *k8sbuild.SyncWriter

	mu           sync.Mutex
	clusters     map[string]*Cluster        // running, by cell
	gateCache    map[string]map[string]bool // by binary path
	versionCache map[string]string          // by binary path
	refusalCache map[string]string          // GatesRefused's, by binary and gates
	// trust checks every binary before it runs, and remembers the digests
	// of those it checked: each cell runs the same few.
	trust *bintrust.Checker

	nodeMu   sync.Mutex
	nodeBins *localnode.Binaries // built on the first AddNode
}

var (
	_ cluster.Provider     = (*Provider)(nil)
	_ cluster.Cluster      = (*Cluster)(nil)
	_ cluster.Restarter    = (*Cluster)(nil)
	_ cluster.RunInspector = (*Cluster)(nil)
	_ cluster.BinaryLister = (*Cluster)(nil)
)

// Info implements cluster.Provider: every cell runs its own processes on
// its own ports and folders, and Stop removes the cluster's storage with
// everything in it. Its clusters start without a kubelet, and a node is
// added on demand; its binaries answer about gates without a cluster.
func (p *Provider) Info() cluster.Info {
	return cluster.Info{SeparateCells: true, Discards: true, MixedCells: p.opts.ReleasedBinDir != "", AddsNodes: true,
		ChecksGates: true, NodeBuildKey: p.nodeBuildKey(), SharesFacts: true}
}

// Credentials implements cluster.Provider: no cluster exists before Start.
func (p *Provider) Credentials() (*rest.Config, error) {
	return nil, cluster.Unsupported(p.Name(), "give credentials before it starts a cluster")
}

// New returns a provider; nothing runs until Start.
func New(opts Options) *Provider {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	opts.APIServerExtraFlags = append([]string(nil), opts.APIServerExtraFlags...)
	p := &Provider{opts: opts, log: k8sbuild.NewSyncWriter(opts.Log), clusters: map[string]*Cluster{}, gateCache: map[string]map[string]bool{}, versionCache: map[string]string{}, refusalCache: map[string]string{}, trust: &bintrust.Checker{}}
	maps.Copy(p.versionCache, opts.Versions)
	p.loadBinaryFacts()
	return p
}

// Name is e.g. "local-v1.37.2".
func (p *Provider) Name() string { return "local-" + p.opts.Version }

// Start brings up a fresh control plane for cell with gates and returns once
// every component is healthy. On failure nothing it started keeps running.
func (p *Provider) Start(ctx context.Context, cell string, gates cluster.GateState) (cluster.Cluster, error) {
	return p.start(ctx, cell, gates, nil)
}

// StartMixed is Start with the released components run from the released
// Kubernetes binaries (Options.ReleasedBinDir) instead of the provider's.
func (p *Provider) StartMixed(ctx context.Context, cell string, gates cluster.GateState, released []cluster.Component) (cluster.Cluster, error) {
	if p.opts.ReleasedBinDir == "" {
		return nil, fmt.Errorf("%s: no released Kubernetes binaries to run %s from: %w", p.Name(), joinComponents(released), cluster.ErrUnsupported)
	}
	set := map[cluster.Component]bool{}
	for _, comp := range released {
		if comp != Etcd && !slices.Contains(cluster.Components, comp) {
			return nil, fmt.Errorf("local: cell %s: %q is not a control-plane component", cell, comp)
		}
		set[comp] = true
	}
	return p.start(ctx, cell, gates, set)
}

func (p *Provider) start(ctx context.Context, cell string, gates cluster.GateState, released map[cluster.Component]bool) (cluster.Cluster, error) {
	if cell == "" {
		return nil, errors.New("local: empty cell name")
	}
	binary := func(comp cluster.Component) string { return p.opts.binary(comp, released) }
	if missing, err := p.unsupportedGates(ctx, gates, binary); err != nil {
		return nil, err
	} else if missing != "" {
		return nil, fmt.Errorf("%s binaries: %s: %w", p.Name(), missing, cluster.ErrUnsupported)
	}
	bins := p.listBinaries(ctx, released) // before p.mu: it takes the lock
	p.mu.Lock()
	if _, ok := p.clusters[cell]; ok {
		p.mu.Unlock()
		return nil, fmt.Errorf("local: cell %s is already running", cell)
	}
	c := newCluster(p.opts, p.log, p.Name()+"/"+cell, cell, gates)
	c.released = released
	c.bins = bins
	c.trust = p.trust
	p.clusters[cell] = c
	p.mu.Unlock()

	if err := c.start(ctx); err != nil {
		c.stop()
		p.forget(c)
		return nil, fmt.Errorf("local: starting cell %s: %w", cell, err)
	}
	return c, nil
}

// binary is the path comp runs from: a released one for the components a
// mixed cell lists, else the one named in Binaries, else BinDir's.
func (o Options) binary(comp cluster.Component, released map[cluster.Component]bool) string {
	if released[comp] {
		return filepath.Join(o.ReleasedBinDir, string(comp))
	}
	if b := o.Binaries[comp]; b != "" {
		return b
	}
	return filepath.Join(o.BinDir, string(comp))
}

func joinComponents(cs []cluster.Component) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ", ")
}

// Stop stops every process of c; its logs stay. Calling it twice is fine.
func (p *Provider) Stop(_ context.Context, c cluster.Cluster) error {
	lc, ok := c.(*Cluster)
	if !ok {
		return fmt.Errorf("local: Stop given a %T, not a local cluster", c)
	}
	lc.stop()
	p.forget(lc)
	return nil
}

// Close implements cluster.Provider: it stops every cluster this provider
// started and has not stopped, for the runner's exit and interrupt paths.
func (p *Provider) Close(_ context.Context) error {
	p.mu.Lock()
	all := make([]*Cluster, 0, len(p.clusters))
	for _, c := range p.clusters {
		all = append(all, c)
	}
	p.clusters = map[string]*Cluster{}
	p.mu.Unlock()
	for _, c := range all {
		c.stop()
	}
	return nil
}

func (p *Provider) forget(c *Cluster) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clusters[c.cell] == c {
		delete(p.clusters, c.cell)
	}
}
