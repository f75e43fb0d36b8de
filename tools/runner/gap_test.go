package runner

import (
	"context"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/spec"
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
