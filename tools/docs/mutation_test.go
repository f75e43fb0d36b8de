package docs

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/mutants"
)

func TestMutationTableAndMerge(t *testing.T) {
	old := []mutants.Result{
		{Provider: "m1", Mistake: "forgets", Seconds: 60},
		{Provider: "gone", Mistake: "was removed", Caught: []string{"x@c"}},
	}
	fresh := []mutants.Result{{Provider: "m1", Mistake: "forgets", Caught: []string{"a@x", "b@x", "c@x", "d@x", "e@x"}, Seconds: 90}}
	rs := mutants.MergeResults(old, fresh, []string{"m1", "m2", "m3"})
	rs = mutants.MergeResults(rs, []mutants.Result{{Provider: "m2", Mistake: "lies", Seconds: 30}, {Provider: "m3", Mistake: "aliases", Equivalent: "nothing writes", Seconds: 30}}, []string{"m1", "m2", "m3"})
	if len(rs) != 3 || rs[0].Provider != "m1" || !rs[0].Killed() {
		t.Fatalf("merged: %+v", rs)
	}
	md := MutationTable(rs)
	for _, want := range []string{
		"| `m1` | forgets | yes | `a@x`, `b@x`, `c@x` and 2 more |",
		"| `m2` | lies | **no** | none: a case is missing |",
		"| `m3` | aliases | no: equivalent | none can: nothing writes |",
		"3 mutants: 1 killed, 1 equivalent, 1 surviving.",
		"the 3 runs took 2m30s in all",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

func TestSpliceMutationTable(t *testing.T) {
	readme := "# x\n\n" + mutationBegin + "old\n" + mutationEnd + "after\n"
	got, err := SpliceMutationTable(readme, "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# x\n\n" + mutationBegin + "new\n" + mutationEnd + "after\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := SpliceMutationTable("# no markers\n", "t"); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Errorf("README without markers: %v", err)
	}
}
