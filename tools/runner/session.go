package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/internal/privdir"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// cellState is one cell's cluster as every ginkgo process sees it. Process 1
// starts the clusters and hands this, as JSON, to the others.
type cellState struct {
	Target     string
	Cell       string
	Cluster    string
	Kubeconfig string
	Gates      cluster.GateState
	// Binaries are what the cluster runs, where the provider knows it.
	Binaries []cluster.Binary
	Caps     probe.Capabilities
	// Facts are what the cluster held when its cases began.
	Facts *probe.Facts `json:",omitempty"`
	// Failed is why the cell's cluster could not start: its cases fail.
	Failed string
	// FailedCause is the outcome cause of Failed, when it is not a start
	// failure (a probe the API server rejected).
	FailedCause string
	// Unsupported is why the provider cannot offer the cell: its cases skip.
	Unsupported string
	// Refused is the start-up error the cell accepts as an outcome.
	Refused string
	// NoNode is why the provider could not add a kubelet node the cell's
	// cases need: those cases skip. NodeFailed is why adding one failed:
	// those cases fail.
	NoNode     string
	NodeFailed string
	// NoFakeNodes is why the cluster may get no Node without a kubelet
	// (a cluster the run did not start, without consent): the cases that
	// create one skip.
	NoFakeNodes string
	// Discarded says the run throws the cluster away after its cells
	// (cluster.Info.Discards): a case leaves its emptied namespace to it.
	Discarded bool `json:",omitempty"`
	// Kubectl and Gone are the provider's word on a namespace
	// --keep-on-failure keeps (cluster.Info): the command that reaches the
	// cluster after the run, and why the cluster goes with the run anyway.
	Kubectl string `json:",omitempty"`
	Gone    string `json:",omitempty"`
	// Contradicted is how the probe contradicts what the cell's gates
	// promise (probe.Implies): the cell's cases fail with it, rather
	// than skip for a missing capability.
	Contradicted string
	// RestartsRefused are the restarts of the cell's cases whose gates the
	// component's binary refuses, by restartKey, with its reason: those
	// cases skip as not applying.
	RestartsRefused map[string]string `json:",omitempty"`
}

// session holds the clusters of a run, one per cell.
type session struct {
	opts   Options
	mu     sync.Mutex
	states map[string]*cellState
	// started are the clusters this process started (process 1 only);
	// they alone can restart components. live adds adopted ones.
	started   map[string]cluster.Cluster
	providers map[string]cluster.Provider
	live      map[string]cluster.Cluster
	clients   map[string]*steps.Clients
	// profileVars are the driver profile's variables, for every case.
	profileVars spec.Vars
	// timing is where each cell's time went, by state key.
	timing map[string]*CellTiming
	// pool runs the cases ahead of their specs, beside each other; nil
	// runs each case in its spec.
	pool *casePool
	// private holds the kubeconfigs handed to other ginkgo processes:
	// never the output folder, which people share (CI artifacts,
	// certification bundles). Made by process 1, removed by stop.
	private string
	// failFast is --fail-fast's state; nil without it.
	failFast *failFast
}

// newSession takes opts with a profile set (Register sees to it).
func newSession(opts Options) *session {
	var ff *failFast
	if opts.FailFast {
		ff = &failFast{}
	}
	return &session{profileVars: opts.Profile.Vars(), failFast: ff,
		opts: opts, states: map[string]*cellState{},
		timing:  map[string]*CellTiming{},
		started: map[string]cluster.Cluster{}, providers: map[string]cluster.Provider{}, live: map[string]cluster.Cluster{}, clients: map[string]*steps.Clients{},
	}
}

// start brings up a cluster for every target and cell, one after the other:
// each control plane takes a few seconds, and starting them together would
// only compete for the same two cores.
func (s *session) start(ctx context.Context) []byte {
	for _, t := range s.opts.Targets {
		for _, cell := range plan.Cells(s.opts.Plan) {
			s.startCell(ctx, t, cell)
		}
	}
	data, _ := json.Marshal(s.states)
	return data
}

func stateKey(target, cell string) string { return target + "/" + cell }

func (s *session) startCell(ctx context.Context, t Target, cell *spec.Cell) {
	key := stateKey(t.Name, cell.Name)
	st := &cellState{Target: t.Name, Cell: cell.Name, Gates: cluster.CellGates(cell)}
	s.states[key] = st
	tm := &CellTiming{Target: t.Name, Cell: cell.Name, Began: time.Now()}
	s.timing[key] = tm
	defer func() { tm.StartSeconds = time.Since(tm.Began).Seconds() }()
	c, err := cluster.StartCell(ctx, t.Provider, cell.Name, st.Gates, cluster.CellReleased(cell))
	if errors.Is(err, cluster.ErrUnsupported) {
		st.Unsupported = err.Error()
		s.logf("%s: skipped: %v", key, err)
		return
	}
	if err != nil && cell.StartRefusal != "" && strings.Contains(err.Error(), cell.StartRefusal) {
		st.Refused = refusalLine(err.Error(), cell.StartRefusal)
		s.logf("%s: the control plane refused these gates, an accepted outcome: %s", key, st.Refused)
		return
	}
	if err != nil {
		st.Failed = err.Error()
		s.logf("%s: cluster failed to start: %v", key, err)
		return
	}
	s.started[key], s.live[key] = c, c
	s.providers[key] = t.Provider
	info := t.Provider.Info()
	st.NoFakeNodes, st.Discarded = info.NoFakeNodes, info.Discards
	st.Kubectl, st.Gone = info.Kubectl, info.Gone
	nodeBegan := time.Now()
	s.addNode(ctx, t, cell, c, st)
	tm.NodeSeconds = time.Since(nodeBegan).Seconds()
	st.Cluster = c.Name()
	st.Binaries = cluster.BinariesOf(c)
	if g := c.Gates(); g != nil {
		st.Gates = g
	}
	_, canRestart := cluster.RestarterOf(c)
	if canRestart {
		st.RestartsRefused = s.refusedRestarts(ctx, t, cell)
	}
	caps, ok := s.probeCell(ctx, key, c, st, canRestart)
	if !ok || !s.exportKubeconfig(t, cell, c, st) {
		return
	}
	s.logf("%s: %s\n  %s\n  %s", key, c.Name(), caps.Describe(), caps)
}

// probeCell reads what the started cluster c can do, and its facts, into
// st; it says whether the cell can run its cases.
func (s *session) probeCell(ctx context.Context, key string, c cluster.Cluster, st *cellState, canRestart bool) (probe.Capabilities, bool) {
	caps, err := probe.Read(ctx, c.RESTConfig(), canRestart)
	if err != nil {
		st.Failed = fmt.Sprintf("probing %s: %v", c.Name(), err)
		if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
			st.FailedCause = report.CauseProbe
		}
		return caps, false
	}
	st.Caps = caps
	if f, err := probe.ReadFacts(ctx, c.RESTConfig()); err != nil {
		s.logf("%s: reading the cluster's facts: %v", key, err)
	} else {
		st.Facts = &f
	}
	if c := probe.Implies(st.Gates).Contradictions(caps); len(c) > 0 {
		st.Contradicted = strings.Join(c, "; ")
		s.logf("%s: the cluster is not in the state its gates promise: %s", key, st.Contradicted)
	}
	return caps, true
}

// exportKubeconfig writes c's credentials into the run's private folder,
// for the cell's cases; it says whether it could.
func (s *session) exportKubeconfig(t Target, cell *spec.Cell, c cluster.Cluster, st *cellState) bool {
	if s.private == "" {
		// 0700, by MkdirTemp: only this user reads the credentials. Its
		// owner is recorded, for cleanup --nodes after a kill.
		dir, err := privdir.Make("draconform-run-")
		if err != nil {
			st.Failed = fmt.Sprintf("creating a private folder for the cluster's credentials: %v", err)
			return false
		}
		s.private = dir
	}
	st.Kubeconfig = filepath.Join(s.private, "kubeconfig-"+t.Name+"-"+cell.Name)
	if err := kubeconfig.Export(c, st.Kubeconfig); err != nil {
		st.Failed = err.Error()
		return false
	}
	return true
}

// addNode gives the cluster a kubelet node with the test driver, where the
// provider can add one and the cell has cases that need it.
func (s *session) addNode(ctx context.Context, t Target, cell *spec.Cell, c cluster.Cluster, st *cellState) {
	if !t.Provider.Info().AddsNodes || !needsNode(s.opts.Plan, t.Name, cell.Name) {
		return
	}
	key := stateKey(t.Name, cell.Name)
	s.logf("%s: adding a kubelet node with the test driver, for the cases that need pods to run", key)
	err := t.Provider.AddNode(ctx, c)
	switch {
	case errors.Is(err, cluster.ErrUnsupported):
		st.NoNode = err.Error()
		s.logf("%s: no node: %v", key, err)
	case err != nil:
		st.NodeFailed = err.Error()
		s.logf("%s: the node failed to start: %v", key, err)
	}
}

// needsNode says whether a case of the cell, on this target, needs nodes
// where pods run.
func needsNode(cases []plan.Case, target, cell string) bool {
	for _, c := range cases {
		if c.Cell.Name == cell && (c.Target == "" || c.Target == target) && c.Case.Requires.Kubelet() {
			return true
		}
	}
	return false
}

// adopt is what processes other than the first do with the shared states.
func (s *session) adopt(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.started) > 0 {
		return nil
	}
	return json.Unmarshal(data, &s.states)
}

// cluster returns the cell's cluster and clients, or why there are none.
func (s *session) cluster(target, cellName string) (*cellState, cluster.Cluster, *steps.Clients, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cell := stateKey(target, cellName)
	st := s.states[cell]
	if st == nil {
		return nil, nil, nil, fmt.Errorf("%s was not started", cell)
	}
	if st.Failed != "" || st.Unsupported != "" || st.Refused != "" {
		return st, nil, nil, nil
	}
	c, ok := s.live[cell]
	if !ok {
		cfg, err := kubeconfig.Load(st.Kubeconfig)
		if err != nil {
			return st, nil, nil, err
		}
		// Another ginkgo process started the cluster; only it can read the
		// components' logs.
		c = kubeconfig.Adopt(st.Cluster, cfg, st.Gates)
		s.live[cell] = c
	}
	cl, ok := s.clients[cell]
	if !ok {
		var err error
		if cl, err = newClients(c.RESTConfig()); err != nil {
			return st, nil, nil, err
		}
		s.clients[cell] = cl
	}
	return st, c, cl, nil
}

func (s *session) stop(ctx context.Context) {
	for cell, c := range s.started {
		if sl, ok := cluster.SchedulerLatencyOf(c); ok {
			if l, err := sl.SchedulerLatency(ctx); err == nil && s.timing[cell] != nil {
				s.timing[cell].Scheduler = &l
			}
		}
		began := time.Now()
		if err := s.providers[cell].Stop(ctx, c); err != nil {
			s.logf("cell %s: stopping: %v", cell, err)
		}
		if tm := s.timing[cell]; tm != nil {
			tm.StopSeconds = time.Since(began).Seconds()
		}
	}
	if s.private != "" {
		if err := os.RemoveAll(s.private); err != nil {
			s.logf("removing the run's private folder: %v", err)
		}
	}
}

// caseBegins notes the first case of a cell, for its timing.
func (s *session) caseBegins(target, cell string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tm := s.timing[stateKey(target, cell)]; tm != nil && tm.FirstCase.IsZero() {
		tm.FirstCase = time.Now()
	}
}

// timings lists the cells' timings in start order.
func (s *session) timings() []CellTiming {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CellTiming
	for _, t := range s.opts.Targets {
		for _, c := range plan.Cells(s.opts.Plan) {
			if tm := s.timing[stateKey(t.Name, c.Name)]; tm != nil {
				out = append(out, *tm)
			}
		}
	}
	return out
}

func (s *session) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "draconform: "+format+"\n", args...)
	}
}

func newClients(cfg *rest.Config) (*steps.Clients, error) {
	if cfg.QPS == 0 && cfg.Burst == 0 {
		// A kubeconfig names no rate, and client-go's default (5 requests
		// a second, bursts of 10) throttled a case's clean-up, a delete per
		// object, to 3.6 s a case on average (make bench's vendor path):
		// kubectl's rate instead. The embedded providers set their own.
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.Burst = 50, 300
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, mapper, err := cluster.DynamicClients(cfg)
	if err != nil {
		return nil, err
	}
	return &steps.Clients{
		Config: cfg, Kube: kube, Dyn: dyn, Mapper: mapper,
		NewDynamic: func(h rest.WarningHandler) (dynamic.Interface, error) {
			c := rest.CopyConfig(cfg)
			c.WarningHandler = h
			return dynamic.NewForConfig(c)
		},
	}, nil
}

// describe says, per cell, which cluster ran it and what it can do; the
// report prints it above the matrix so a reader knows what was tested.
// CellFacts is what one cell of a run ran on, as cluster-facts.json holds
// it: the cluster, the probe's findings and what the cluster held.
type CellFacts struct {
	Target   string             `json:"target"`
	Cell     string             `json:"cell"`
	Cluster  string             `json:"clusterName,omitempty"`
	NotRun   string             `json:"notRun,omitempty"`
	Binaries []cluster.Binary   `json:"binaries,omitempty"`
	Gates    cluster.GateState  `json:"gates,omitempty"`
	Caps     probe.Capabilities `json:"capabilities"`
	Read     *probe.Facts       `json:"cluster,omitempty"`
	// Contradicted says how the probe contradicts the cell's gates: every
	// claim resting on the cell is then not conformant.
	Contradicted string `json:"contradicted,omitempty"`
}

// cellFacts lists every cell of the run, in start order.
func (s *session) cellFacts() []CellFacts {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CellFacts
	for _, t := range s.opts.Targets {
		for _, c := range plan.Cells(s.opts.Plan) {
			st := s.states[stateKey(t.Name, c.Name)]
			if st == nil {
				continue
			}
			out = append(out, CellFacts{Target: t.Name, Cell: c.Name, Cluster: st.Cluster, Binaries: st.Binaries, Gates: st.Gates,
				Caps: st.Caps, Read: st.Facts, NotRun: firstNonEmpty(st.Unsupported, st.Failed, st.Refused), Contradicted: st.Contradicted})
		}
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// CellStates are what the probe found in each cell that ran (the state of
// extendedResourceCapacityRequests, and how it contradicts the cell's
// gates), for verdicts: from a run, or from a bundle's cluster-facts.json.
func CellStates(cells []CellFacts) report.CellStates {
	out := report.CellStates{}
	for _, c := range cells {
		if c.NotRun == "" {
			out[c.Target+"/"+c.Cell] = report.CellState{Field: c.Caps.CapacityRequestsField, Contradicted: c.Contradicted}
		}
	}
	return out
}

func (s *session) describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, t := range s.opts.Targets {
		for _, c := range plan.Cells(s.opts.Plan) {
			key := stateKey(t.Name, c.Name)
			st := s.states[key]
			switch {
			case st == nil:
				fmt.Fprintf(&b, "%s: not started\n", key)
			case st.Unsupported != "":
				fmt.Fprintf(&b, "%s: skipped: %s\n", key, st.Unsupported)
			case st.Failed != "":
				fmt.Fprintf(&b, "%s: FAILED to start: %s\n", key, st.Failed)
			case st.Refused != "":
				fmt.Fprintf(&b, "%s: refused to start, an accepted outcome: %s\n", key, st.Refused)
			case st.Contradicted != "":
				fmt.Fprintf(&b, "%s: %s\n  %s\n  NOT IN THE STATE ITS GATES PROMISE: %s\n", key, st.Cluster, st.Caps, st.Contradicted)
			default:
				fmt.Fprintf(&b, "%s: %s\n  %s\n  %s\n", key, st.Cluster, st.Caps.Describe(), st.Caps)
				for _, bin := range st.Binaries {
					fmt.Fprintf(&b, "  %s: %s (%s)\n", bin.Component, bin.Path, bin.Version)
				}
			}
		}
	}
	return b.String()
}

// refusalLine picks the line of a start-up error that carries the refusal,
// since the whole error holds a log tail.
func refusalLine(err, want string) string {
	for _, line := range strings.Split(err, "\n") {
		if strings.Contains(line, want) {
			return strings.TrimSpace(line)
		}
	}
	return want
}
