package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

const dependency = "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"

// checkingProvider answers GatesRefused as a binary would that refuses
// DRAConsumableCapacity=false, and records what it was asked.
type checkingProvider struct {
	cluster.Provider // the rest of the contract, which this test does not call
	asked            []string
}

func (p *checkingProvider) Name() string       { return "checking" }
func (p *checkingProvider) Info() cluster.Info { return cluster.Info{ChecksGates: true} }
func (p *checkingProvider) GatesRefused(_ context.Context, comp cluster.Component, g cluster.Gates, released []cluster.Component) (string, error) {
	p.asked = append(p.asked, fmt.Sprintf("%s {%s} released=%v", comp, g.Flag(), released))
	if off, ok := g["DRAConsumableCapacity"]; ok && !off {
		return string(comp) + " refuses --feature-gates=" + g.Flag() + ": " + dependency, nil
	}
	return "", nil
}

func restartStep(comp string, gates map[string]bool) spec.Step {
	return spec.Step{Restart: &spec.Restart{Component: comp, Gates: gates}}
}

func restartCase(id, cell, target string, st []spec.Step, gap *spec.Gap) plan.Case {
	return plan.Case{ID: id + "@" + cell, Target: target, Serial: true, Cell: &spec.Cell{Name: cell}, Suite: &spec.Suite{Name: "s"},
		Case: &spec.Case{ID: id, Steps: st, Gap: gap}}
}

var (
	off = map[string]bool{"DRAConsumableCapacity": false}
	on  = map[string]bool{"DRAExtendedResourceCapacity": true}
)

// Before any case of a cell runs, the provider is asked once about each
// restart its cases make on that target (a gap's included), from the
// binaries the cell runs; a case whose restart the binary refuses then
// skips as not applying, with the binary's reason, and the others do not.
func TestARestartTheBinaryRefusesIsJudgedBeforeTheCase(t *testing.T) {
	cell := &spec.Cell{Name: "defaults"}
	refused := restartCase("survives-scheduler-gate-off", "defaults", "", []spec.Step{restartStep("kube-scheduler", off)}, nil)
	cases := []plan.Case{
		refused,
		restartCase("also-off", "defaults", "", []spec.Step{restartStep("kube-scheduler", off), restartStep("kube-apiserver", on)}, nil),
		restartCase("gap", "defaults", "", nil, &spec.Gap{Closed: []spec.Step{restartStep("kube-controller-manager", off)}}),
		restartCase("on", "defaults", "", []spec.Step{restartStep("kube-apiserver", on)}, nil),
		restartCase("elsewhere", "capacity-on", "", []spec.Step{restartStep("kube-apiserver", off)}, nil),
		restartCase("another-target", "defaults", "other", []spec.Step{restartStep("kube-apiserver", off)}, nil),
	}
	p := &checkingProvider{}
	s := newSession(Options{Plan: cases, Profile: &spec.DriverProfile{}, CaseTimeout: time.Minute})
	got := s.refusedRestarts(context.Background(), Target{Name: "t", Provider: p}, cell)
	wantAsked := []string{"kube-scheduler {DRAConsumableCapacity=false} released=[]", "kube-apiserver {DRAExtendedResourceCapacity=true} released=[]", "kube-controller-manager {DRAConsumableCapacity=false} released=[]"}
	if !slices.Equal(p.asked, wantAsked) {
		t.Errorf("asked %q, want %q", p.asked, wantAsked)
	}
	if len(got) != 2 || !strings.Contains(got["kube-scheduler {DRAConsumableCapacity=false}"], dependency) || got["kube-controller-manager {DRAConsumableCapacity=false}"] == "" {
		t.Errorf("refused restarts %q", got)
	}

	st := &cellState{Caps: probe.Capabilities{Restart: true}, RestartsRefused: got}
	for _, tc := range []struct {
		c    plan.Case
		skip bool
	}{{refused, true}, {cases[1], true}, {cases[2], true}, {cases[3], false}} {
		u := unmet(tc.c, st, &spec.DriverProfile{})
		if (u.reason != "") != tc.skip || (tc.skip && !u.inapplicable) {
			t.Errorf("%s: unmet %+v, want a skip that does not apply: %v", tc.c.ID, u, tc.skip)
		}
	}

	if unmet(refused, st, &spec.DriverProfile{}).reason == "" {
		t.Fatal("the refused restart's case would run")
	}
	// The whole way, as a case of the session: skipped, not failed,
	// marked inapplicable, with the binary's reason.
	key := stateKey("t", "defaults")
	s.states[key] = st
	s.live[key] = restartingCluster{}
	s.clients[key] = &steps.Clients{}
	refused.Target = "t"
	r := execCase(context.Background(), s, refused, false)
	if r.failure != "" || !strings.Contains(r.skip, dependency) || !strings.Contains(r.skip, "kube-scheduler") {
		t.Errorf("failure %q, skip %q; want a skip with the binary's reason", r.failure, r.skip)
	}
	if !hasEntry(r, report.EntryInapplicable, true) || !hasEntry(r, report.EntryCause, report.CauseGatesNotOffered) {
		t.Errorf("entries %+v lack inapplicable and the cause", r.entries)
	}
}

// restartingCluster is a fake cluster whose every restart the binary refuses.
type restartingCluster struct{ nsCluster }

func (restartingCluster) Restart(_ context.Context, c cluster.Component, g cluster.Gates) error {
	return fmt.Errorf("local: restarting %s in cell defaults with gates %q: %s exited: exit status 1; log tail:\nE1205 run.go:72] \"command failed\" err=%q", c, g.Flag(), c, dependency)
}
func (restartingCluster) RESTConfig() *rest.Config { return &rest.Config{Host: "https://fake.invalid"} }

// A restart that meets the binary's refusal only when it runs (a provider
// that cannot ask beforehand) ends the case as not applying too: the
// refusal reaches the runner through the step's wrapping, and a gap's
// closed steps do not run for it, since the gap was never tested.
func TestARestartRefusedAsItRunsDoesNotApply(t *testing.T) {
	f := stepstest.New(t)
	f.Env.Cluster = restartingCluster{}
	f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
	c := restartCase("survives", "defaults", "t", []spec.Step{restartStep("kube-scheduler", off)},
		&spec.Gap{Present: "a gap", Closed: []spec.Step{{Sleep: &spec.Sleep{Why: "the closed gap"}}}})
	r := newCaseResult(false)
	err := caseSteps(context.Background(), f.Env, c, false, r)
	if !errors.Is(err, cluster.ErrUnsupported) || gatesNotOffered(err) == nil || !strings.Contains(err.Error(), dependency) {
		t.Fatalf("caseSteps: %v; want the binary's refusal, as does-not-apply", err)
	}
	if log := r.log.String(); strings.Contains(log, "gap") {
		t.Errorf("the gap's closed steps ran for a refused restart:\n%s", log)
	}
	if err := f.Env.RunCleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func hasEntry(r *caseResult, name string, value any) bool {
	for _, e := range r.entries {
		if e.name == name && e.value == value {
			return true
		}
	}
	return false
}
