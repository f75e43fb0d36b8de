package kind

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind/kindconfig"
	"github.com/draconform/draconform/tools/lang/spec"
)

// acquire hands cell a free cluster, or brings up another.
func (p *Provider) acquire(ctx context.Context, cell string) (*kindCluster, error) {
	p.mu.Lock()
	for _, kc := range p.clusters {
		kc.mu.Lock()
		free := kc.cell == ""
		if free {
			kc.cell = cell
		}
		kc.mu.Unlock()
		if free {
			p.mu.Unlock()
			p.logf("kind: cell %s reuses cluster %s", cell, kc.name)
			return kc, nil
		}
	}
	if len(p.clusters) >= p.opts.MaxClusters {
		busy := make([]string, 0, len(p.clusters))
		for _, kc := range p.clusters {
			busy = append(busy, kc.name)
		}
		p.mu.Unlock()
		return nil, fmt.Errorf("every cluster (%s) is held by a running cell and MaxClusters is %d: run fewer cells at once (--cells)", strings.Join(busy, ", "), p.opts.MaxClusters)
	}
	name := clusterName(p.opts.ClusterName, cell, len(p.clusters))
	path, err := p.kubeconfigPath(name)
	if err != nil {
		p.mu.Unlock()
		return nil, err
	}
	kc := &kindCluster{name: name, kubeconfig: path, cell: cell, gates: cluster.GateState{}, gateCache: p.gates, timing: p.timing, logf: p.logf}
	p.clusters = append(p.clusters, kc) // reserved while it comes up
	p.mu.Unlock()

	if err := p.bringUp(ctx, kc); err != nil {
		p.drop(kc)
		return nil, err
	}
	return kc, nil
}

// clusterName is the configured name for the first cluster, and names the
// others after the cell that needed them, which says why they exist.
func clusterName(base, cell string, existing int) string {
	if existing == 0 {
		return base
	}
	return base + "-" + cell
}

func (p *Provider) release(kc *kindCluster, cell string) {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	if kc.cell == cell {
		kc.cell = ""
	}
}

// drop forgets a cluster that failed to come up, deleting it unless the
// user wants to look at it.
func (p *Provider) drop(kc *kindCluster) {
	p.mu.Lock()
	for i, c := range p.clusters {
		if c == kc {
			p.clusters = append(p.clusters[:i], p.clusters[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if p.opts.KeepCluster {
		return
	}
	if err := p.kind.Delete(kc.name, kc.kubeconfig); err != nil {
		p.logf("kind: deleting %s after its failed start: %v", kc.name, err)
	}
}

// bringUp creates the cluster, or adopts one of that name left by an
// earlier run with KeepCluster, then connects to it and installs the
// driver. It is created without gates: apply sets them, for the first cell
// as for every later one (see the package comment).
func (p *Provider) bringUp(ctx context.Context, kc *kindCluster) error {
	if err := p.ensureOutDir(); err != nil {
		return err
	}
	existing, err := p.kind.List()
	if err != nil {
		return fmt.Errorf("listing kind clusters: %w", err)
	}
	if slices.Contains(existing, kc.name) {
		p.logf("kind: adopting the existing cluster %s", kc.name)
		if err := p.kind.ExportKubeConfig(kc.name, kc.kubeconfig, false); err != nil {
			return fmt.Errorf("kubeconfig of %s: %w", kc.name, err)
		}
	} else if err := p.create(kc); err != nil {
		return err
	}
	if err := p.connect(ctx, kc); err != nil {
		return err
	}
	if p.opts.InstallDriver {
		if err := p.installDriver(ctx, kc); err != nil {
			return fmt.Errorf("installing the test driver on %s: %w", kc.name, err)
		}
	}
	return nil
}

func (p *Provider) create(kc *kindCluster) error {
	opts := kindconfig.Options{Name: kc.name, Image: p.opts.Image}
	if p.opts.KEPBinDir != "" {
		opts.KEPBinDir, opts.PatchesDir = p.opts.KEPBinDir, p.patchesDir()
		if err := kindconfig.WritePatchFiles(opts.PatchesDir); err != nil {
			return err
		}
	}
	cfg, err := kindconfig.Build(spec.Cell{Name: kc.cell}, opts)
	if err != nil {
		return err
	}
	began := time.Now()
	p.logf("kind: creating cluster %s (%s) for cell %s", kc.name, p.opts.Image, kc.cell)
	err = p.kind.Create(kc.name,
		kindcluster.CreateWithV1Alpha4Config(cfg),
		kindcluster.CreateWithKubeconfigPath(kc.kubeconfig),
		kindcluster.CreateWithWaitForReady(5*time.Minute),
	)
	if err != nil {
		return fmt.Errorf("creating kind cluster %s: %w", kc.name, err)
	}
	p.logf("kind: cluster %s created in %.0fs", kc.name, time.Since(began).Seconds())
	return nil
}

// connect finds the nodes, builds clients from the cluster's kubeconfig
// and reads the gates the control plane runs with (none on a new cluster;
// an adopted one keeps those of its last cell).
func (p *Provider) connect(ctx context.Context, kc *kindCluster) error {
	all, err := p.kind.ListNodes(kc.name)
	if err != nil {
		return fmt.Errorf("listing the nodes of %s: %w", kc.name, err)
	}
	cp, err := nodeutils.BootstrapControlPlaneNode(all)
	if err != nil {
		return fmt.Errorf("finding the control-plane node of %s: %w", kc.name, err)
	}
	raw, err := p.kind.KubeConfig(kc.name, false)
	if err != nil {
		return fmt.Errorf("kubeconfig of %s: %w", kc.name, err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(raw))
	if err != nil {
		return fmt.Errorf("kubeconfig of %s: %w", kc.name, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("client for %s: %w", kc.name, err)
	}
	gates, err := readGates(ctx, cp)
	if err != nil {
		return fmt.Errorf("cluster %s: %w", kc.name, err)
	}
	kc.mu.Lock()
	kc.nodes, kc.cp, kc.cfg, kc.client, kc.api, kc.gates = all, cp, cfg, cs, p.newAPI(cs, cp), gates
	kc.mu.Unlock()
	return nil
}

// readGates reads the gates every component's manifest gives it.
func readGates(ctx context.Context, cp nodes.Node) (cluster.GateState, error) {
	gates := cluster.GateState{}
	for _, c := range cluster.Components {
		data, err := readManifest(ctx, cp, c)
		if err != nil {
			return nil, err
		}
		g, err := FeatureGatesOf(data, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", manifestPath(c), err)
		}
		if len(g) > 0 {
			gates[c] = g
		}
	}
	return gates, nil
}
