package steps_test

import (
	"testing"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

func TestExpectEvent(t *testing.T) {
	short := spec.Duration(300 * time.Millisecond)
	tests := []struct {
		name    string
		events  []string // FailedScheduling messages about p1
		other   string   // one about another pod
		message string
		atMost  int
		fails   []string
	}{
		{name: "recorded", events: []string{"0/1 nodes: cannot allocate all claims"}, message: "cannot allocate"},
		{name: "any message", events: []string{"whatever"}},
		{name: "none", fails: []string{"no FailedScheduling event of pod/p1", "within"}},
		{name: "message differs", events: []string{"something else"}, message: "cannot allocate",
			fails: []string{`contains "cannot allocate"`, "something else"}},
		{name: "another pod's event", other: "cannot allocate", message: "cannot allocate", fails: []string{"no FailedScheduling event of pod/p1"}},
		{name: "within the bound", events: []string{"a", "a"}, atMost: 2},
		{name: "over the bound", events: []string{"a", "a", "a"}, atMost: 2, fails: []string{"recorded 3 times, more than 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			p := f.SeedYAML("p1", podYAML("p1", "", unschedulableStatus))
			other := f.AddYAML(podYAML("other", "", unschedulableStatus))
			for _, m := range tt.events {
				f.Event(p.Object, "FailedScheduling", m)
			}
			if tt.other != "" {
				f.Event(other.Object, "FailedScheduling", tt.other)
			}
			st := &steps.ExpectEvent{Spec: &spec.ExpectEvent{Ref: "pod/p1", Reason: "FailedScheduling", Message: tt.message, AtMost: tt.atMost, Within: short}}
			check(t, run(t, f, st), tt.fails)
		})
	}
}
