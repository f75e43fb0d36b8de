package docs

import (
	"reflect"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

// A case with no outcome of an implementation at a cell that implementation
// has outcomes at is named; a cell the implementation never ran is not.
func TestGoldenUncovered(t *testing.T) {
	g := report.Golden{
		"kind s/a@on":     "skipped: the provider cannot run this cell",
		"kind s/a@off":    "passed",
		"kind-kep s/a@on": "passed",
	}
	ids := []string{"s/a@on", "s/a@off", "s/b@on", "s/b@off"}
	want := []string{"[kind-kep] s/b@on", "[kind] s/b@off", "[kind] s/b@on"}
	if got := GoldenUncovered(g, ids); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	g["kind s/b@on"], g["kind s/b@off"], g["kind-kep s/b@on"] = "passed", "passed", "passed"
	if got := GoldenUncovered(g, ids); len(got) != 0 {
		t.Errorf("a covered table gave %q", got)
	}
}
