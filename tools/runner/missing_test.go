package runner

import (
	"slices"
	"testing"

	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
)

// A complete run that ended early (Ctrl-C, a cell's process that died)
// lacks outcomes of planned cases, and says which; a narrowed run selected
// its cases on purpose, so it lacks none.
func TestMissingOutcomesOfACompleteRun(t *testing.T) {
	cases := []plan.Case{{ID: "s/a@on"}, {ID: "s/b@on"}, {ID: "s/c@off"}}
	opts := Options{Plan: cases, Targets: []Target{{Name: "impl"}}, Complete: true}
	got := []report.Outcome{
		{ID: "s/a@on", Target: "impl", State: report.Passed},
		// A skip is an outcome: the case was judged not to apply.
		{ID: "s/c@off", Target: "impl", State: report.Skipped, Inapplicable: true},
		// Another implementation's outcome does not stand for this one's.
		{ID: "s/b@on", Target: "other", State: report.Passed},
	}
	if missing := Missing(opts, got); !slices.Equal(missing, []string{"[impl] s/b@on"}) {
		t.Errorf("missing %q, want [impl] s/b@on", missing)
	}
	opts.Complete = false
	if missing := Missing(opts, got); len(missing) != 0 {
		t.Errorf("a narrowed run misses %q", missing)
	}
}
