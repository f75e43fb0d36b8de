package runner

import (
	"slices"
	"testing"

	"github.com/draconform/draconform/tools/lang/plan"
)

// OnlyIDs keeps the named cases, in the plan's order, and leaves the plan
// it was given as it was.
func TestOnlyIDs(t *testing.T) {
	cases := []plan.Case{{ID: "s/a@on"}, {ID: "s/b@on"}, {ID: "s/a@off"}}
	got := OnlyIDs(cases, []string{"s/a@off", "s/a@on", "s/none@on"})
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"s/a@on", "s/a@off"}) {
		t.Errorf("kept %v", ids)
	}
	if cases[1].ID != "s/b@on" {
		t.Errorf("the plan changed: %v", cases)
	}
	if len(OnlyIDs(cases, []string{"x"})) != 0 {
		t.Error("an unknown id kept a case")
	}
}
