package kind

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
)

// Cluster is one cell's hold on a kind cluster, from Start to Stop.
type Cluster struct {
	p    *Provider
	kc   *kindCluster
	cell string
}

// Name is e.g. "kind-v1.37.0/defaults".
func (c *Cluster) Name() string { return c.p.Name() + "/" + c.cell }

// KindCluster is the kind cluster the cell runs on, for kubectl --context
// kind-<name> or kind export logs --name <name>.
func (c *Cluster) KindCluster() string { return c.kc.name }

// RESTConfig returns a fresh admin config each call.
func (c *Cluster) RESTConfig() *rest.Config { return c.kc.restConfig() }

// Gates reports the gates the manifests give each component now.
func (c *Cluster) Gates() cluster.GateState { return c.kc.currentGates() }

// TailLog implements cluster.Cluster. For a control-plane component it
// reads the last lines of its newest container on the control-plane node,
// after the states of all its containers (a component in crash-loop
// back-off shows as exited ones); for the kubelet and containerd, the
// systemd journal of their unit on every node. The whole logs of every
// cluster are exported with kind's CollectLogs into the run's output at
// Close.
func (c *Cluster) TailLog(ctx context.Context, comp cluster.Component, lines int) (string, error) {
	switch comp {
	case cluster.Kubelet, cluster.Containerd:
		return c.journal(ctx, comp, lines)
	}
	all, err := c.containers(ctx, comp)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, ctr := range all {
		fmt.Fprintf(&b, "container %s %s created %s\n", ctr.ID, ctr.State, time.Unix(0, ctr.CreatedAt).UTC().Format(time.RFC3339))
	}
	logs, err := nodeCombined(ctx, c.kc.cp, "crictl", "logs", "--tail", strconv.Itoa(lines), all[0].ID)
	b.Write(logs)
	return b.String(), err
}

// CurrentRun implements cluster.RunInspector: comp's newest container on
// the control-plane node, and its log (the last runLogLines lines).
func (c *Cluster) CurrentRun(ctx context.Context, comp cluster.Component) (cluster.Run, error) {
	all, err := c.containers(ctx, comp)
	if err != nil {
		return cluster.Run{}, err
	}
	newest := all[0]
	logs, err := nodeCombined(ctx, c.kc.cp, "crictl", "logs", "--tail", strconv.Itoa(runLogLines), newest.ID)
	if err != nil {
		return cluster.Run{}, fmt.Errorf("reading the log of %s container %s: %w", comp, newest.ID, err)
	}
	return cluster.Run{ID: newest.ID, Running: newest.running(), Log: string(logs)}, nil
}

// containers lists comp's containers on the control-plane node, newest
// first (listContainers sorts them), and fails when there is none.
func (c *Cluster) containers(ctx context.Context, comp cluster.Component) ([]criContainer, error) {
	all, err := listContainers(ctx, c.kc.cp, comp)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no %s container on %s", comp, c.kc.cp)
	}
	return all, nil
}

// runLogLines bounds what CurrentRun reads of a container's log.
const runLogLines = 50000

// Restart starts comp again with gates, through its manifest as a cell
// start does, and returns once it serves; with unchanged gates its
// container is stopped and the kubelet starts a new one. On failure the
// previous gates are back.
func (c *Cluster) Restart(ctx context.Context, comp cluster.Component, gates cluster.Gates) error {
	if !slices.Contains(cluster.Components, comp) {
		return fmt.Errorf("kind: cannot restart %q in cell %s: not a control-plane component", comp, c.cell)
	}
	want := c.kc.currentGates()
	if want == nil {
		want = cluster.GateState{}
	}
	want[comp] = gates
	if err := c.kc.apply(ctx, want, comp); err != nil {
		return fmt.Errorf("kind: restarting %s in cell %s with gates %q: %w", comp, c.cell, gates.Flag(), err)
	}
	return nil
}

// Outage implements cluster.Outager: comp's pod leaves the control-plane
// node for down, then comes back with its gates, and Outage returns once
// it serves again.
func (c *Cluster) Outage(ctx context.Context, comp cluster.Component, down time.Duration) error {
	if !slices.Contains(cluster.Components, comp) {
		return fmt.Errorf("kind: cannot take %q away in cell %s: not a control-plane component", comp, c.cell)
	}
	if err := c.kc.outage(ctx, comp, down); err != nil {
		return fmt.Errorf("kind: an outage of %s for %s in cell %s: %w", comp, down, c.cell, err)
	}
	return nil
}

// journal reads the last lines of a node service's journal on every node of
// the cluster, since a pod may have landed on any of them.
func (c *Cluster) journal(ctx context.Context, comp cluster.Component, lines int) (string, error) {
	var b strings.Builder
	var errs []error
	for _, n := range c.kc.nodes {
		fmt.Fprintf(&b, "node %s, journal of %s:\n", n, comp)
		out, err := nodeCombined(ctx, n, "journalctl", "--no-pager", "--output=short-precise", "-u", string(comp), "-n", strconv.Itoa(lines))
		b.Write(out)
		errs = append(errs, err)
	}
	return b.String(), errors.Join(errs...)
}
