package report

import (
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// The outcome comes from the typed key, whatever the labels and the title
// say: renaming a label must not move a case in the golden table.
func TestOutcomesReadTheKey(t *testing.T) {
	key := Key{Target: "prototype", Suite: "kep6406-api", Case: "field-stored", Cell: "capacity-on", Contested: true}
	r := types.Report{SpecReports: types.SpecReports{
		{
			LeafNodeType:   types.NodeTypeIt,
			LeafNodeText:   "a title someone reworded",
			LeafNodeLabels: []string{"suite:renamed", "cell:renamed", "provider:renamed"},
			State:          types.SpecStatePassed,
			ReportEntries:  types.ReportEntries{{Name: EntryKey, Value: types.WrapEntryValue(key)}},
		},
		// A spec without a key is not a case of the suite.
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "helper", State: types.SpecStatePassed},
	}}
	got := Outcomes(r)
	if len(got) != 1 {
		t.Fatalf("outcomes %+v, want the one case with a key", got)
	}
	o := got[0]
	if o.ID != "kep6406-api/field-stored@capacity-on" || o.Target != "prototype" || o.Suite != "kep6406-api" || o.Cell != "capacity-on" || !o.Contested || o.State != Passed {
		t.Errorf("outcome %+v does not follow its key", o)
	}
}

// From a parallel process the entry arrives as JSON, without the Go value.
func TestKeyFromAnotherProcess(t *testing.T) {
	want := Key{Target: "local", Suite: "s", Case: "c", Cell: "defaults", Known: true}
	data, err := types.WrapEntryValue(want).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var v types.ReportEntryValue
	if err := v.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	if got, ok := keyOf(v); !ok || got != want {
		t.Errorf("keyOf = %+v, %v; want %+v", got, ok, want)
	}
}
