package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// Steps on a stored, unbound pod p1: "holds" passes, "fails" fails fast.
const (
	holds = `{assert: {ref: pod/p1, object: {spec: {nodeName: null}}}}`
	fails = `{assert: {ref: pod/p1, within: 100ms, object: {spec: {nodeName: n1}}}}`
)

func stepList(t *testing.T, src ...string) []spec.Step {
	t.Helper()
	var out []spec.Step
	if err := yaml.Unmarshal([]byte("["+strings.Join(src, ", ")+"]"), &out); err != nil {
		t.Fatalf("steps %q: %v", src, err)
	}
	for i := range out {
		out[i].Pos = spec.Pos{File: "suites/s.yaml", Line: 10 + i}
	}
	return out
}

// Only the step that pins the gap may fail into gap.closed: any other
// failure is the case's, whatever gap.closed would have said.
func TestOnlyThePinnedStepRunsGapClosed(t *testing.T) {
	pinned := func(step string) string { return strings.TrimSuffix(step, "}") + ", pinsGap: true}" }
	tests := []struct {
		name    string
		steps   []string
		closed  []string
		gap     string // the gap entry recorded, "" for none
		failure []string
	}{
		{name: "every step passes: gap present", steps: []string{holds, pinned(holds), holds}, closed: []string{holds}, gap: "present"},
		{name: "the pinned step fails, gap.closed passes: gap closed", steps: []string{holds, pinned(fails), fails}, closed: []string{holds}, gap: "closed"},
		{name: "the pinned step fails, and gap.closed too", steps: []string{pinned(fails)}, closed: []string{fails},
			failure: []string{"neither has the gap the case pins", "gap.closed failed", "gap.closed step 1 at suites/s.yaml:10"}},
		{name: "a step before the pinned one fails", steps: []string{fails, pinned(holds)}, closed: []string{holds},
			failure: []string{"step 1 at suites/s.yaml:10", "gap.closed does not run", "step 2 at suites/s.yaml:11"}},
		{name: "a step after the pinned one fails", steps: []string{pinned(holds), fails}, closed: []string{holds},
			failure: []string{"step 2 at suites/s.yaml:11", "gap.closed does not run", "step 1 at suites/s.yaml:10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			f.SeedYAML("p1", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: main, image: pause}]}\n")
			c := &spec.Case{ID: "a", Steps: stepList(t, tt.steps...), Gap: &spec.Gap{Present: "the gap", Closed: stepList(t, tt.closed...)}}
			r := newCaseResult(false)
			err := stepsOrGap(context.Background(), f.Env, r, c)
			if tt.failure == nil && err != nil {
				t.Fatalf("the case must pass, but failed:\n%v", err)
			}
			if tt.failure != nil {
				if err == nil {
					t.Fatalf("the case must fail (%q), but passed", tt.failure)
				}
				for _, s := range tt.failure {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("the failure does not say %q:\n%v", s, err)
					}
				}
			}
			gap := ""
			for _, e := range r.entries {
				if e.name == report.EntryGap {
					gap = e.value.(string)
				}
			}
			if gap != tt.gap {
				t.Errorf("gap recorded %q, want %q", gap, tt.gap)
			}
		})
	}
}

// A step that cannot check what it promises here ends the case as not
// applicable, with its reason: never a pass, never a failure, and never a
// way into gap.closed.
func TestNotApplicableEndsTheCase(t *testing.T) {
	na := &steps.NotApplicable{Cause: "cannot count", Reason: "the scheduler does not log its attempts"}
	wrapped := fmt.Errorf("step 2 at suites/s.yaml:11, over 20s ...:\n%w", na)
	r := newCaseResult(false)
	if !endNotApplicable(r, wrapped) {
		t.Fatal("a wrapped NotApplicable did not end the case")
	}
	if r.skip != na.Reason || r.failure != "" {
		t.Errorf("skip %q, failure %q: want the skip %q", r.skip, r.failure, na.Reason)
	}
	got := map[string]any{}
	for _, e := range r.entries {
		got[e.name] = e.value
	}
	if got[report.EntryInapplicable] != true || got[report.EntryCause] != na.Cause {
		t.Errorf("entries %v: want inapplicable and cause %q", got, na.Cause)
	}
	if endNotApplicable(newCaseResult(false), fmt.Errorf("some failure")) {
		t.Error("a failure ended the case as not applicable")
	}

	// Even from the step that pins a gap: expectNoHotLoop on a cluster
	// that shows no kube-scheduler (the fakes show none).
	f := stepstest.New(t)
	f.SeedYAML("p1", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: main, image: pause}]}\n"+
		"status: {conditions: [{type: PodScheduled, status: \"False\", reason: Unschedulable, message: m}]}\n")
	c := &spec.Case{ID: "a", Steps: stepList(t, `{expectNoHotLoop: {pod: p1, over: 1s, maxAttempts: 10}, pinsGap: true}`),
		Gap: &spec.Gap{Present: "p", Closed: stepList(t, holds)}}
	r = newCaseResult(false)
	err := stepsOrGap(context.Background(), f.Env, r, c)
	if !steps.IsNotApplicable(err) {
		t.Fatalf("want the case not applicable, got %v", err)
	}
	for _, e := range r.entries {
		if e.name == report.EntryGap {
			t.Errorf("a step that does not apply ran gap.closed (gap %v)", e.value)
		}
	}
}

// A step that cannot check its promise here skips itself, not the steps
// after it: a later step that fails fails the case (a claim made and
// dropped at each attempt, on a cluster whose scheduler log nothing shows),
// and where they all pass the case still does not apply.
func TestNotApplicableStepLetsTheRestRun(t *testing.T) {
	unmeasured := `{expectNoHotLoop: {pod: p1, over: 1s, maxAttempts: 10}}`
	for _, tt := range []struct {
		name       string
		steps      []string
		applicable bool
		failure    string
	}{
		{name: "the steps after it pass", steps: []string{unmeasured, holds}},
		{name: "a step after it fails", steps: []string{unmeasured, fails}, applicable: true, failure: "step 2 at suites/s.yaml:11"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := stepstest.New(t)
			f.SeedYAML("p1", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: main, image: pause}]}\n"+
				"status: {conditions: [{type: PodScheduled, status: \"False\", reason: Unschedulable, message: m}]}\n")
			r := newCaseResult(false)
			err := stepsOrGap(context.Background(), f.Env, r, &spec.Case{ID: "a", Steps: stepList(t, tt.steps...)})
			if steps.IsNotApplicable(err) == tt.applicable {
				t.Fatalf("not applicable: %v, want %v (err %v)", steps.IsNotApplicable(err), !tt.applicable, err)
			}
			if tt.failure != "" && (err == nil || !strings.Contains(err.Error(), tt.failure)) {
				t.Errorf("the failure does not name %q: %v", tt.failure, err)
			}
		})
	}
}
