// Package kind is the provider of real clusters in Docker: kind nodes with
// a kubelet and containerd, so that the test driver (drivers/) publishes
// devices and pods really start, which the embedded control plane cannot
// offer.
//
// It drives kind through its Go library, sigs.k8s.io/kind/pkg/cluster, not
// a kind binary (as e2e-framework's kind support does): the version is the
// one go.mod pins, so nothing needs installing and CI and laptops cannot
// differ; errors come back as values instead of text to scrape; and the
// nodes are at hand as objects to run commands in.
//
// One cluster serves many cells. A cluster is created without gates, and
// every cell, the first included, gets its gates by an edit of the
// --feature-gates flag in the static pod manifests of the control-plane
// node, which the kubelet answers by restarting that component: seconds
// instead of the minutes of a new cluster. That path can also ask the
// running binaries which gates they have before setting any (so a cell
// needing a gate the node image lacks is skipped, not failed), and read
// the log of a component that refuses its gates (so a cell's accepted
// start refusal reaches the runner as text). A cluster is reused once the
// cell on it has stopped; while it is in use (the runner starts every cell
// before running cases) the next cell gets a cluster of its own, named
// <ClusterName>-<cell>, up to MaxClusters.
package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind/kindconfig"
	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/host/nodeimage"
	"github.com/draconform/draconform/tools/internal/privdir"
)

// Options configures a Provider.
type Options struct {
	// ClusterName names the first cluster; default "draconform".
	ClusterName string
	// Image is the node image; default kind v0.33.0's (Kubernetes v1.37.0).
	Image string
	// KEPBinDir holds statically linked kube-apiserver and kube-scheduler
	// built with KEP-6406, run in place of the node image's (see
	// tools/cluster/kind/kindconfig). DRAExtendedResourceCapacity exists only there.
	KEPBinDir string
	// KeepCluster leaves the clusters running after Close, to debug or to
	// reuse in the next run (a cluster of the same name is adopted).
	KeepCluster bool
	// InstallDriver builds the test driver's image and deploys it on every
	// cluster, waiting for its ResourceSlices.
	InstallDriver bool
	// RepoRoot holds drivers/; default found from the working directory.
	RepoRoot string
	// OutDir receives kubeconfigs, kubeadm patches, the driver image
	// archive and, at Close, every cluster's logs (kind's CollectLogs).
	OutDir string
	// MaxClusters bounds how many clusters run at once; default 3.
	MaxClusters int
	Log         io.Writer
	// Runner runs docker on the host; default ExecRunner.
	Runner CommandRunner
}

// Provider implements cluster.Provider with kind clusters.
type Provider struct {
	opts  Options
	kind  kindAPI
	run   CommandRunner
	gates *gateCache

	logMu sync.Mutex
	log   io.Writer

	// newAPI wraps a cluster's client; tests stand in for the API server.
	newAPI func(kubernetes.Interface, nodes.Node) controlPlaneAPI

	mu            sync.Mutex
	dockerChecked bool
	dockerErr     error
	clusters      []*kindCluster
	timing        timing

	// driverMu serialises the driver image build, which takes minutes,
	// apart from mu, which Stop and Close need meanwhile.
	driverMu      sync.Mutex
	driverArchive string

	// private holds the clusters' kubeconfigs (mode 0700), apart from
	// OutDir, whose reports people share; made on first use, removed by
	// Close unless the clusters are kept.
	privateOnce sync.Once
	private     string
	privateErr  error
}

var (
	_ cluster.Provider  = (*Provider)(nil)
	_ cluster.Cluster   = (*Cluster)(nil)
	_ cluster.Restarter = (*Cluster)(nil)
)

// New checks opts and returns a provider; nothing runs until Start.
func New(opts Options) (*Provider, error) {
	// kind's library runs the docker CLI, which finds the engine through
	// DOCKER_HOST: draconform's own engine, where it runs and the person
	// named none.
	engine.PointDockerHost()
	return newProvider(opts, newKindAPI())
}

func newProvider(opts Options, api kindAPI) (*Provider, error) {
	if opts.ClusterName == "" {
		opts.ClusterName = kindconfig.DefaultName
	}
	if opts.Image == "" {
		opts.Image = kindconfig.DefaultImage
	}
	if opts.MaxClusters == 0 {
		opts.MaxClusters = 3
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Runner == nil {
		opts.Runner = ExecRunner
	}
	if opts.OutDir == "" {
		return nil, errors.New("kind: Options.OutDir is required (kubeconfigs and logs go there)")
	}
	if opts.KEPBinDir != "" {
		dir, err := filepath.Abs(opts.KEPBinDir)
		if err != nil {
			return nil, fmt.Errorf("kind: KEP binaries: %w", err)
		}
		if err := kindconfig.CheckKEPBinaries(dir); err != nil {
			return nil, fmt.Errorf("kind: %w", err)
		}
		opts.KEPBinDir = dir
	}
	if opts.InstallDriver && opts.RepoRoot == "" {
		root, err := k8sbuild.FindRepoRoot()
		if err != nil {
			return nil, fmt.Errorf("kind: finding drivers/ for the test driver: %w", err)
		}
		opts.RepoRoot = root
	}
	return &Provider{opts: opts, kind: api, run: opts.Runner, gates: newGateCache(), log: opts.Log, timing: defaultTiming,
		newAPI: func(cs kubernetes.Interface, _ nodes.Node) controlPlaneAPI { return clientAPI{cs} }}, nil
}

// Name is e.g. "kind-v1.37.0", or "kind-v1.37.0+kep-binaries".
func (p *Provider) Name() string { return providerName(p.opts.Image, p.opts.KEPBinDir != "") }

// Info implements cluster.Provider: cells share a few clusters, which
// outlive a cell (so a case deletes its namespace), and the clusters are
// the run's own, so fake Nodes disturb nobody. Their nodes are the node
// image's, with the test driver installed at Start: there is no node to
// add or to build.
func (p *Provider) Info() cluster.Info {
	info := cluster.Info{}
	if !p.opts.KeepCluster {
		info.Gone = "kind's clusters are deleted when the run ends (--kind-keep keeps them), and the namespace with them"
	}
	return info
}

func providerName(image string, kep bool) string {
	name := "kind-" + imageVersion(image)
	if kep {
		name += "+kep-binaries"
	}
	return name
}

// imageVersion is the tag of a node image reference, which kind's images
// name after the Kubernetes version: kindest/node:v1.37.0@sha256:... gives
// v1.37.0. The offline image's tag adds a digest of its inputs
// (nodeimage.Repository:v1.37.2-<digest>), left out so that the provider's
// name, which keys the golden outcomes, stays when an input changes.
func imageVersion(image string) string {
	ref, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return "latest"
	}
	tag := ref[i+1:]
	if ref[:i] == nodeimage.Repository {
		tag, _, _ = strings.Cut(tag, "-")
	}
	return tag
}

// Start gives cell a cluster whose components run with gates: a free one
// reconfigured, or a new one. A gate the binaries lack is ErrUnsupported;
// a component refusing its gates is an error carrying its log, and the
// cluster goes back to its previous gates for the next cell.
func (p *Provider) Start(ctx context.Context, cell string, gates cluster.GateState) (cluster.Cluster, error) {
	if cell == "" {
		return nil, errors.New("kind: empty cell name")
	}
	if err := p.checkDocker(ctx); err != nil {
		return nil, err
	}
	if missing := p.knownUnsupported(gates); missing != "" {
		return nil, fmt.Errorf("%s: %s: %w", p.Name(), missing, cluster.ErrUnsupported)
	}
	kc, err := p.acquire(ctx, cell)
	if err != nil {
		return nil, fmt.Errorf("kind: cell %s: %w", cell, err)
	}
	if err := kc.apply(ctx, gates); err != nil {
		p.release(kc, cell)
		return nil, fmt.Errorf("kind: cell %s on cluster %s: %w", cell, kc.name, err)
	}
	return &Cluster{p: p, kc: kc, cell: cell}, nil
}

// Stop frees the cell's cluster for the next cell; the cluster keeps
// running, its gates as they are, until Close. Calling it twice is fine.
func (p *Provider) Stop(_ context.Context, c cluster.Cluster) error {
	kc, ok := c.(*Cluster)
	if !ok {
		return fmt.Errorf("kind: Stop given a %T, not a kind cluster", c)
	}
	p.release(kc.kc, kc.cell)
	return nil
}

// Close ends the run: it exports every cluster's logs into OutDir/logs
// and deletes the clusters, unless KeepCluster.
func (p *Provider) Close(_ context.Context) error {
	p.mu.Lock()
	all := p.clusters
	p.clusters = nil
	p.mu.Unlock()
	var errs []error
	for _, kc := range all {
		dir := filepath.Join(p.opts.OutDir, "logs", kc.name)
		if err := p.kind.CollectLogs(kc.name, dir); err != nil {
			p.logf("kind: collecting the logs of %s: %v", kc.name, err)
		} else {
			p.logf("kind: logs of %s in %s", kc.name, dir)
		}
		if p.opts.KeepCluster {
			p.logf("kind: kept cluster %s (kubeconfig %s; delete it with: kind delete cluster --name %s)", kc.name, kc.kubeconfig, kc.name)
			continue
		}
		if err := p.kind.Delete(kc.name, kc.kubeconfig); err != nil {
			errs = append(errs, fmt.Errorf("kind: deleting cluster %s: %w", kc.name, err))
		}
	}
	if p.private != "" && !p.opts.KeepCluster {
		if err := os.RemoveAll(p.private); err != nil {
			errs = append(errs, fmt.Errorf("kind: removing %s: %w", p.private, err))
		}
	}
	// A kept cluster's kubeconfig is the user's now: cleanup --nodes
	// leaves it.
	if p.private != "" && p.opts.KeepCluster {
		if err := privdir.Keep(p.private); err != nil {
			errs = append(errs, fmt.Errorf("kind: marking %s kept: %w", p.private, err))
		}
	}
	return errors.Join(errs...)
}

func (p *Provider) checkDocker(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.dockerChecked {
		p.dockerErr = CheckDocker(ctx, p.run)
		p.dockerChecked = true
	}
	return p.dockerErr
}

// knownUnsupported answers from what an earlier cell learnt of the
// binaries, so that no cluster is created only to find the gate missing.
func (p *Provider) knownUnsupported(gates cluster.GateState) string {
	var missing []string
	for _, c := range cluster.Components {
		if len(gates[c]) == 0 {
			continue
		}
		if known, ok := p.gates.lookup(c); ok {
			missing = append(missing, cluster.UnknownGates(c, known, gates[c])...)
		}
	}
	return strings.Join(missing, "; ")
}

func (p *Provider) logf(format string, args ...any) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintf(p.log, format+"\n", args...)
}

// kubeconfigPath is where kind writes a cluster's credentials: a private
// file of the run, never ~/.kube/config, which belongs to the user, nor
// OutDir.
func (p *Provider) kubeconfigPath(name string) (string, error) {
	p.privateOnce.Do(func() {
		p.private, p.privateErr = privdir.Make("draconform-kind-")
		if p.privateErr != nil {
			p.privateErr = fmt.Errorf("kind: creating a private folder for the kubeconfigs: %w", p.privateErr)
		}
	})
	if p.privateErr != nil {
		return "", p.privateErr
	}
	return filepath.Join(p.private, "kubeconfig-"+name), nil
}

func (p *Provider) patchesDir() string { return filepath.Join(p.opts.OutDir, "kubeadm-patches") }

func (p *Provider) ensureOutDir() error {
	if err := os.MkdirAll(p.opts.OutDir, 0o755); err != nil {
		return fmt.Errorf("kind: creating %s: %w", p.opts.OutDir, err)
	}
	return nil
}
