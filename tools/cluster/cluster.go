// Package cluster is the one interface every step acts on. Providers (the
// embedded local control plane, any kubeconfig, kind) hide behind it, so a
// step never knows which one runs.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/rest"
)

// Component names a control-plane component whose feature gates a cell sets.
type Component string

const (
	APIServer         Component = "kube-apiserver"
	Scheduler         Component = "kube-scheduler"
	ControllerManager Component = "kube-controller-manager"
)

// A node's components, whose logs TailLog reads where a provider runs them.
const (
	Kubelet    Component = "kubelet"
	Containerd Component = "containerd"
)

// Components lists every control-plane component in start order.
var Components = []Component{APIServer, Scheduler, ControllerManager}

// Gates holds explicit feature-gate settings for one component. A gate that is
// absent keeps the binary's default.
type Gates map[string]bool

// Equal says whether two components run with the same explicit gates;
// nil and empty are the same.
func (g Gates) Equal(o Gates) bool {
	if len(g) != len(o) {
		return false
	}
	for k, v := range g {
		if w, ok := o[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Flag renders the gates as a --feature-gates value, sorted so that the same
// gates always give the same command line.
func (g Gates) Flag() string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%t", k, g[k]))
	}
	return strings.Join(parts, ",")
}

// GateState is the explicit gates of every component.
type GateState map[Component]Gates

// Clone returns a deep copy, so a provider can keep its own state.
func (s GateState) Clone() GateState {
	if s == nil {
		return nil // unknown stays unknown
	}
	out := GateState{}
	for c, g := range s {
		cp := Gates{}
		for k, v := range g {
			cp[k] = v
		}
		out[c] = cp
	}
	return out
}

// Cluster is what steps act on.
type Cluster interface {
	// Name identifies the cluster in reports, e.g. "local-v1.37.2/all-default".
	Name() string
	// RESTConfig gives a fresh copy of admin credentials for the API server.
	RESTConfig() *rest.Config
	// Gates reports the explicit gates each component runs with, or nil where
	// the provider cannot know them (any cluster behind a kubeconfig).
	Gates() GateState
	// TailLog reads the last lines a component logged in its current run
	// (a restarted component's earlier runs would mislead), for failure
	// diagnostics, which read it when a case fails, before anything
	// restarts the component. An error wrapping ErrNoLog says the provider
	// cannot read that component's log: diagnostics leave it out.
	TailLog(ctx context.Context, c Component, lines int) (string, error)
}

// ErrNoLog is wrapped by TailLog where a component's log cannot be read:
// the cluster does not run it, or the provider has no access to it.
var ErrNoLog = errors.New("no log to read")

// RunInspector is implemented by providers that can see a component's
// current run: an identity that changes when the component restarts or
// crashes, and what that run has logged. Steps use it for promises about a
// component's own behaviour, such as a scheduler that must neither panic nor
// retry an unschedulable pod in a hot loop.
type RunInspector interface {
	CurrentRun(ctx context.Context, c Component) (Run, error)
}

// Run is one run of a component.
type Run struct {
	// ID names the run (a process ID, a container ID); a new run has a new one.
	ID      string
	Running bool
	// Log is what this run has logged, at most its last few MiB.
	Log string
}

// Restarter is implemented by providers that can stop one component and start
// it again with other gates, on the same storage. Steps that need it run
// serially, since every case on the cluster sees the restart.
type Restarter interface {
	Restart(ctx context.Context, c Component, gates Gates) error
}

// BinaryRestarter restarts a component from a chosen one of its two
// binaries: the implementation's, or the release the implementation builds
// on. A provider that runs no released binaries returns ErrUnsupported.
type BinaryRestarter interface {
	RestartBinary(ctx context.Context, c Component, gates Gates, released bool) error
	// RunsReleased says whether c runs from the released binary now.
	RunsReleased(c Component) bool
}

// NodeAdder is implemented by providers whose clusters start without a
// kubelet (the embedded control plane) but can add a node that really runs
// pods, with the test driver on it. The runner asks only for cells with
// cases that need one: a node takes seconds and a container runtime.
type NodeAdder interface {
	// AddNode returns once the node is Ready and the test driver publishes
	// its devices there. Where this machine cannot run a node, the error
	// wraps ErrUnsupported and says why.
	AddNode(ctx context.Context, c Cluster) error
}

// FakeNodePolicy is implemented by providers of clusters the run did not
// start. A fake Node (a Node object with no kubelet, which most cases
// schedule onto) draws the cluster's own DaemonSets there, and their agents
// alert; so such a cluster gets fake Nodes only with its operator's consent.
type FakeNodePolicy interface {
	// FakeNodes returns nil where the run may create fake Nodes, else why
	// not: the cases that need them skip with it.
	FakeNodes() error
}

// Discardable is implemented by clusters the run starts for itself and
// throws away after its cells, with everything in them (the embedded
// control plane). There a case leaves its emptied namespace to go with the
// cluster: deleting one costs the namespace controller a list and a delete
// of every namespaced resource type the API server serves (about 60
// requests), which made up close to half of an embedded API server's
// requests, and nothing a case checks follows from it.
type Discardable interface {
	DiscardedByRun() bool
}

// Provider creates the cluster for one gate cell and tears it down.
type Provider interface {
	Name() string
	// Start brings up (or adopts) a cluster whose components run with gates.
	// A provider that cannot honour gates returns an error wrapping
	// ErrUnsupported, so the plan can skip the cell with a stated reason.
	Start(ctx context.Context, cell string, gates GateState) (Cluster, error)
	// Stop releases everything Start created. It is safe to call twice.
	Stop(ctx context.Context, c Cluster) error
	// Close stops whatever the provider still runs, at the end of a run or
	// on an interrupt. It is safe to call twice.
	Close(ctx context.Context) error
}

// BinaryLister is implemented by clusters that know which binaries they
// run, so that a report can say what was tested.
type BinaryLister interface {
	Binaries() []Binary
}

// Binary is one binary a cluster runs.
type Binary struct {
	Component Component
	Path      string
	// Version is the first line the binary prints for --version.
	Version string
}

// MixedStarter is implemented by providers that can run some components
// from the released Kubernetes binaries their implementation builds on,
// beside its own: the version-skew cells of an upgrade.
type MixedStarter interface {
	StartMixed(ctx context.Context, cell string, gates GateState, released []Component) (Cluster, error)
}

// StartCell starts a cell through p, with the released components run from
// released binaries where p can do that, and ErrUnsupported where it cannot.
func StartCell(ctx context.Context, p Provider, cell string, gates GateState, released []Component) (Cluster, error) {
	if len(released) == 0 {
		return p.Start(ctx, cell, gates)
	}
	m, ok := p.(MixedStarter)
	if !ok {
		names := make([]string, len(released))
		for i, c := range released {
			names[i] = string(c)
		}
		return nil, fmt.Errorf("%s cannot run %s from released Kubernetes binaries beside its own: %w", p.Name(), strings.Join(names, ", "), ErrUnsupported)
	}
	return m.StartMixed(ctx, cell, gates, released)
}

// ErrUnsupported marks what a provider cannot do, as opposed to what failed.
var ErrUnsupported = fmt.Errorf("not supported by this provider")

// SeparateCells is a provider whose every cell is a cluster of its own that
// any process can start in seconds (the embedded control planes): a run may
// then give each cell a process of its own, side by side. kind, which
// shares a few clusters between cells, and a kubeconfig's one cluster are
// not.
type SeparateCells interface {
	SeparateCells()
	// CellUnsupported says, without starting anything, why the provider
	// cannot start a cell with these gates (a gate its binaries do not
	// know), or "" when it can: such a cell's cases only skip, so a run
	// plans no time for them.
	CellUnsupported(ctx context.Context, gates GateState, released []Component) (string, error)
}

// SchedulerLatency is a cluster that can say how long its scheduler took to
// bind the pods it bound so far, by its own metrics: what a benchmark sets
// a case's wall time beside.
type SchedulerLatency interface {
	SchedulerLatency(ctx context.Context) (Latency, error)
}

// SchedulerMetrics is a cluster that can read kube-scheduler's own
// metrics, in Prometheus' text format: what the KEP's PRR names as the
// signal of a misconfigured class.
type SchedulerMetrics interface {
	SchedulerMetrics(ctx context.Context) (string, error)
}

// Latency is the time a scheduler spent on Pods pods, from each one's
// first entry into its queue to its binding.
type Latency struct {
	Pods    int     `json:"pods"`
	Seconds float64 `json:"seconds"`
}
