package usecase

import (
	"testing"

	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
)

// The run's first line counts what will run: a focused run used to print
// the whole plan's count.
func TestRunSizeCountsTheFocusedCases(t *testing.T) {
	on, off := &spec.Cell{Name: "on"}, &spec.Cell{Name: "off"}
	planned := []plan.Case{{ID: "s/a@on", Cell: on}, {ID: "s/b@on", Cell: on}, {ID: "s/a@off", Cell: off}}
	for _, tc := range []struct {
		focused []plan.Case
		want    string
	}{
		{planned, "3 cases in 2 cells"},
		{planned[:1], "1 case in 1 cell (of 3 planned)"},
		{planned[1:], "2 cases in 2 cells (of 3 planned)"},
	} {
		if got := runSize(planned, tc.focused); got != tc.want {
			t.Errorf("runSize(%d of %d) = %q, want %q", len(tc.focused), len(planned), got, tc.want)
		}
	}
}
