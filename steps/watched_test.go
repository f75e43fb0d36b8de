package steps_test

import (
	"testing"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/spec"
)

// The planner costs a case by the windows its steps watch: the registry
// says how long each kind watches, its default included, and steps that
// watch nothing add nothing.
func TestWatchedSumsTheWindowsOfAStepsKind(t *testing.T) {
	c := &spec.Case{Steps: []spec.Step{
		{ExpectNoHotLoop: &spec.ExpectNoHotLoop{Over: spec.Duration(45 * time.Second)}},
		{ExpectNoHotLoop: &spec.ExpectNoHotLoop{}},
		{Sleep: &spec.Sleep{}},
	}}
	if got, want := steps.Watched(c), 65*time.Second; got != want {
		t.Errorf("Watched = %v, want %v (45 s given, 20 s by default, a sleep watches nothing)", got, want)
	}
	if got := steps.Watched(&spec.Case{}); got != 0 {
		t.Errorf("a case without steps watches %v", got)
	}
}
