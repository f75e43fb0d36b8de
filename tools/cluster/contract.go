package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
)

// The contract between the runner and the providers, whole. A Provider
// starts a Cluster per gate cell; steps act on the Cluster.
//
// A provider says what it can do as data, its Info, and has every method
// of Provider: one it cannot honour returns an error wrapping
// ErrUnsupported, and Info says so beforehand, so that no caller needs to
// ask a provider's type (kind's ProviderInfo is the model).
//
// A cluster may add one of the abilities below. They stay interfaces,
// asked only through the ...Of functions of abilities.go, because they
// belong to the cluster value in hand rather than to its provider: a
// local cell's cluster adopted by another process of the run (a
// kubeconfig.Adopted) cannot restart what its provider could, and a
// test's fake cluster offers only the ability it tests. A case skips,
// with the reason, where its cluster lacks one.
//
//	ability           implemented by          asked by
//	RunInspector      Cluster (local, kind)   hot-loop and crash steps, outage diagnosis
//	Restarter         Cluster (local, kind)   restart steps; the runner for restart checks
//	Outager           Cluster (local, kind)   outage steps
//	BinaryRestarter   Cluster (local)         restart steps with `binary: released`
//	BinaryLister      Cluster (local)         reports: which binaries ran
//	SchedulerLatency  Cluster (local)         the runner's timings, benchmarks
//	SchedulerMetrics  Cluster (local, kind)   the PRR metrics step, benchmarks
//
// And what each provider says of itself (Info), by the methods it
// governs:
//
//	Info                says                                      methods
//	MixedCells          runs released components beside its own   StartMixed
//	AddsNodes           adds a kubelet node to a started cluster  AddNode
//	ChecksGates         asks its binaries before starting         CellUnsupported, GatesRefused
//	NodeBuildKey        builds what its nodes run                 NodeBinaries, AdoptNodeBinaries
//	SharesFacts         records its binaries' facts for the run   RecordBinaryFacts
//	Visits              visits a cluster someone else runs        Credentials
//
// tools/cluster/providers/contract_test.go checks both tables against the
// providers.

// Provider creates the cluster for one gate cell and tears it down.
type Provider interface {
	Name() string
	// Info says what the provider can do.
	Info() Info
	// Start brings up (or adopts) a cluster whose components run with gates.
	// A provider that cannot honour gates returns an error wrapping
	// ErrUnsupported, so the plan can skip the cell with a stated reason.
	Start(ctx context.Context, cell string, gates GateState) (Cluster, error)
	// StartMixed is Start with released run from the released Kubernetes
	// binaries the implementation builds on, beside its own: the
	// version-skew cells of an upgrade (Info.MixedCells).
	StartMixed(ctx context.Context, cell string, gates GateState, released []Component) (Cluster, error)
	// AddNode adds to c, a cluster this provider started without a kubelet,
	// a node that really runs pods, with the test driver on it, and returns
	// once the node is Ready and the driver publishes its devices. Where
	// this machine cannot run a node, the error wraps ErrUnsupported and
	// says why (Info.AddsNodes). The runner asks only for cells with cases
	// that need one: a node takes seconds and a container runtime.
	AddNode(ctx context.Context, c Cluster) error
	// CellUnsupported says, without starting anything, why the provider
	// cannot start a cell with these gates (a gate its binaries do not
	// know), or "" when it can (Info.ChecksGates). The planner asks it for
	// every cell: a cell it cannot start only skips, so a run plans no
	// time for it.
	CellUnsupported(ctx context.Context, gates GateState, released []Component) (string, error)
	// GatesRefused returns the binary's refusal of gates for comp, in a
	// cell that runs released from the released binaries, or "" when the
	// binary takes them; an error means it could not tell
	// (Info.ChecksGates). The runner asks it for every restart a cell's
	// cases make: a case whose restart the binary refuses is skipped as
	// not applying, with the binary's reason, instead of failing at the
	// restart.
	GatesRefused(ctx context.Context, comp Component, gates Gates, released []Component) (string, error)
	// NodeBinaries builds (once) and returns what the provider's nodes run
	// (Info.NodeBuildKey), so that a run can build it before its cells
	// start rather than in the first cell that adds a node.
	NodeBinaries(ctx context.Context) (NodeBinaries, error)
	// AdoptNodeBinaries makes the provider's nodes run bins, built by
	// another provider of the run with an equal Info.NodeBuildKey, instead
	// of building them again.
	AdoptNodeBinaries(bins NodeBinaries) error
	// RecordBinaryFacts asks the provider's binaries, once for all the
	// run's processes, what every cell would ask them (Info.SharesFacts).
	RecordBinaryFacts(ctx context.Context) error
	// Credentials reach the cluster the provider visits (Info.Visits),
	// for a preflight before any cell starts.
	Credentials() (*rest.Config, error)
	// Stop releases everything Start created. It is safe to call twice.
	Stop(ctx context.Context, c Cluster) error
	// Close stops whatever the provider still runs, at the end of a run or
	// on an interrupt. It is safe to call twice.
	Close(ctx context.Context) error
}

// Info is what a provider can do that is a fact rather than an operation,
// read by the planner and the runner (kind's ProviderInfo is the model).
// Where a field says the provider cannot do something, the method it
// governs returns an error wrapping ErrUnsupported.
type Info struct {
	// SeparateCells: every cell is a cluster of its own that any process
	// can start in seconds (the embedded control planes), so a run may give
	// each cell a process of its own, side by side. kind, which shares a
	// few clusters between cells, and a kubeconfig's one cluster are not.
	SeparateCells bool
	// Discards: the run starts its clusters for itself and throws them away
	// after their cells, with everything in them (the embedded control
	// plane). There a case leaves its emptied namespace to go with the
	// cluster: deleting one costs the namespace controller a list and a
	// delete of every namespaced resource type the API server serves (about
	// 60 requests), which made up close to half of an embedded API server's
	// requests, and nothing a case checks follows from it.
	Discards bool
	// NoFakeNodes is why the run may not create fake Nodes (Node objects
	// with no kubelet, which most cases schedule onto), or "" where it may.
	// On a cluster the run did not start, a fake Node draws the cluster's
	// own DaemonSets there, and their agents alert; so such a cluster gets
	// fake Nodes only with its operator's consent. The cases that need
	// them skip with this reason.
	NoFakeNodes string
	// MixedCells: StartMixed may run some components from released
	// binaries (the embedded control planes), or take a cluster its
	// operator declared to be such a cell (a kubeconfig's).
	MixedCells bool
	// AddsNodes: the provider's clusters start without a kubelet, and
	// AddNode can give one a node (the embedded control planes; whether
	// this machine can run it, AddNode says).
	AddsNodes bool
	// ChecksGates: CellUnsupported and GatesRefused ask the provider's
	// binaries, starting nothing.
	ChecksGates bool
	// NodeBuildKey names the binaries the provider's nodes run, which the
	// run builds (NodeBinaries): two providers of a run with equal keys run
	// the same, so one build serves both (AdoptNodeBinaries). Empty where
	// the provider builds nothing for nodes.
	NodeBuildKey string
	// SharesFacts: RecordBinaryFacts records, for the run's other
	// processes, what the provider's binaries say of themselves.
	SharesFacts bool
	// Visits: the cluster is someone else's, reached by Credentials, which
	// the run checks (its access, what confines its writes) before any
	// case; there is nothing of the provider's own to build.
	Visits bool
	// Kubectl is the kubectl command that reaches the provider's cluster
	// after the run, for a namespace --keep-on-failure kept there; "" where
	// none outlives the run.
	Kubectl string
	// Gone says why the provider's clusters go when the run ends although
	// the run did not start them to discard them (kind's, unless kept), or
	// "".
	Gone string
}

// NodeBinaries is what an embedded node runs, built by the run: paths on
// this machine.
type NodeBinaries struct {
	Kubelet string
	// RuntimeDir holds the container runtime's programs, built by the
	// tools/build/nodebin module.
	RuntimeDir string
	// ToolsDir holds draconform-runc, draconform-pause and
	// draconform-driver, built from this repository.
	ToolsDir string
	// PauseArchive and DriverArchive are images to import: the sandbox
	// image and the test driver's.
	PauseArchive  string
	DriverArchive string
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

// ErrUnsupported marks what a provider cannot do, as opposed to what failed.
var ErrUnsupported = fmt.Errorf("not supported by this provider")

// ErrNoLog is wrapped by TailLog where a component's log cannot be read:
// the cluster does not run it, or the provider has no access to it.
var ErrNoLog = errors.New("no log to read")

// RunInspector is a cluster that can see a component's current run: an
// identity that changes when the component restarts or crashes, and what
// that run has logged. Steps use it for promises about a component's own
// behaviour, such as a scheduler that must neither panic nor retry an
// unschedulable pod in a hot loop.
type RunInspector interface {
	CurrentRun(ctx context.Context, c Component) (Run, error)
}

// Restarter is a cluster that can stop one component and start it again
// with other gates, on the same storage. Steps that need it run serially,
// since every case on the cluster sees the restart.
type Restarter interface {
	Restart(ctx context.Context, c Component, gates Gates) error
}

// Outager is a cluster that can take one component away for a while and
// bring it back as it was, gates and binary: an outage, which the KEP's
// Troubleshooting asks about. Steps that need it run serially.
type Outager interface {
	Outage(ctx context.Context, c Component, down time.Duration) error
}

// BinaryRestarter restarts a component from a chosen one of its two
// binaries: the implementation's, or the release the implementation builds
// on. A provider that runs no released binaries returns ErrUnsupported.
type BinaryRestarter interface {
	RestartBinary(ctx context.Context, c Component, gates Gates, released bool) error
	// RunsReleased says whether c runs from the released binary now.
	RunsReleased(c Component) bool
}

// BinaryLister is a cluster that knows which binaries it runs, so that a
// report can say what was tested.
type BinaryLister interface {
	Binaries() []Binary
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

// StartCell starts a cell through p, with the released components run from
// released binaries where p can do that, and ErrUnsupported where it cannot.
func StartCell(ctx context.Context, p Provider, cell string, gates GateState, released []Component) (Cluster, error) {
	if len(released) == 0 {
		return p.Start(ctx, cell, gates)
	}
	return p.StartMixed(ctx, cell, gates, released)
}
