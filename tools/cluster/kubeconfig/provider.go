// Package kubeconfig adopts any cluster a kubeconfig reaches. It cannot set
// feature gates or restart components, so only cells that keep the cluster's
// own gates run on it; the others are skipped with that reason.
package kubeconfig

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/draconform/draconform/tools/cluster"
)

// Provider adopts the cluster of one kubeconfig.
type Provider struct {
	// Path is the kubeconfig; empty resolves --kubeconfig, $KUBECONFIG, then
	// ~/.kube/config, as kubectl does, and in a pod with none of them the
	// pod's service account.
	Path    string
	Context string
	// Cell, if set, declares that the cluster already runs with that
	// cell's gates (its operator configured them): that cell runs, and
	// every other is skipped. Without it only cells that set no gates run.
	Cell string
	// ServiceAccountDir holds the token and CA used in a pod when there is
	// no kubeconfig; default DefaultServiceAccountDir.
	ServiceAccountDir string
	// AllowFakeNodes is the operator's consent to Node objects with no
	// kubelet (--allow-fake-nodes); without it the cases that need them
	// skip.
	AllowFakeNodes bool
}

// Info implements cluster.Provider: the cluster is someone else's, which
// the run visits (a preflight checks its access first) and leaves as it
// found it, so fake Nodes need its operator's consent, and a namespace
// kept on failure is reached with the kubeconfig the run was given.
func (p *Provider) Info() cluster.Info {
	info := cluster.Info{MixedCells: true, Visits: true, Kubectl: p.kubectl()}
	if !p.AllowFakeNodes {
		info.NoFakeNodes = "creates Node objects with no kubelet behind them, which this cluster's DaemonSets that tolerate every taint would follow (draconform preflight lists them); pass --allow-fake-nodes to run it here"
	}
	return info
}

// kubectl is the command that reaches the cluster as the run did.
func (p *Provider) kubectl() string {
	cmd := "kubectl"
	if p.Path != "" {
		cmd += " --kubeconfig " + shellQuote(p.Path)
	}
	if p.Context != "" {
		cmd += " --context " + shellQuote(p.Context)
	}
	return cmd
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Credentials resolves the kubeconfig (or the pod's service account) as
// Start does, for a preflight before any cell starts.
func (p *Provider) Credentials() (*rest.Config, error) {
	creds, err := resolve(p.Path, p.Context, p.saDir())
	if err != nil {
		return nil, err
	}
	return creds.cfg, nil
}

func (p *Provider) saDir() string {
	if p.ServiceAccountDir == "" {
		return DefaultServiceAccountDir
	}
	return p.ServiceAccountDir
}

// Close implements cluster.Provider: draconform started nothing to stop.
func (p *Provider) Close(context.Context) error { return nil }

// Name implements cluster.Provider.
func (p *Provider) Name() string { return "kubeconfig" }

// StartMixed implements cluster.Provider: only a cluster its operator
// declared to be that cell (--as-cell) runs it, since draconform cannot see
// which binaries a cluster runs.
func (p *Provider) StartMixed(ctx context.Context, cell string, gates cluster.GateState, _ []cluster.Component) (cluster.Cluster, error) {
	if p.Cell != cell {
		return nil, fmt.Errorf("cell %s runs some components from older, released binaries, which draconform cannot arrange on a kubeconfig cluster (set the cluster up so, then pass --as-cell %s): %w", cell, cell, cluster.ErrUnsupported)
	}
	return p.Start(ctx, cell, gates)
}

// Start implements cluster.Provider.
func (p *Provider) Start(_ context.Context, cell string, gates cluster.GateState) (cluster.Cluster, error) {
	var known cluster.GateState
	switch {
	case p.Cell != "" && cell != p.Cell:
		return nil, fmt.Errorf("the cluster is declared to run cell %s (--as-cell), not %s: %w", p.Cell, cell, cluster.ErrUnsupported)
	case p.Cell != "":
		known = gates
	default:
		for comp, g := range gates {
			if len(g) > 0 {
				return nil, fmt.Errorf("cell %s sets %s gates {%s}, and draconform cannot change a kubeconfig cluster's gates (configure the cluster so, then pass --as-cell %s): %w", cell, comp, g.Flag(), cell, cluster.ErrUnsupported)
			}
		}
	}
	creds, err := resolve(p.Path, p.Context, p.saDir())
	if err != nil {
		return nil, err
	}
	return &Adopted{name: creds.name, cfg: creds.cfg, raw: creds.raw, gates: known}, nil
}

// Stop implements cluster.Provider: a cluster it did not create stays.
func (p *Provider) Stop(context.Context, cluster.Cluster) error { return nil }

// Adopted is a cluster reached through credentials only.
type Adopted struct {
	name  string
	cfg   *rest.Config
	raw   *clientcmdapi.Config // the kubeconfig it came from, if any
	gates cluster.GateState
}

// Adopt wraps credentials as a Cluster; gates are what is known of it (nil
// where nothing is).
func Adopt(name string, cfg *rest.Config, gates cluster.GateState) *Adopted {
	return &Adopted{name: name, cfg: cfg, gates: gates}
}

// Name implements cluster.Cluster.
func (a *Adopted) Name() string { return a.name }

// RESTConfig implements cluster.Cluster.
func (a *Adopted) RESTConfig() *rest.Config { return rest.CopyConfig(a.cfg) }

// Gates implements cluster.Cluster.
func (a *Adopted) Gates() cluster.GateState { return a.gates.Clone() }

// TailLog implements cluster.Cluster: credentials reach the API server
// only, not where the components log.
func (a *Adopted) TailLog(_ context.Context, comp cluster.Component, _ int) (string, error) {
	return "", fmt.Errorf("%s: %w: a kubeconfig reaches the API server only, not the log of %s", a.name, cluster.ErrNoLog, comp)
}
