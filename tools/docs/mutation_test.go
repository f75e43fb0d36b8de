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
	fresh := []mutants.Result{{Provider: "m1", Mistake: "forgets", Caught: []string{"a@x", "b@x", "c@x", "d@x", "e@x", "i@x"}, Seconds: 90,
		Breaks: []mutants.Break{{Claim: "on", Cases: []string{"a@x", "b@x", "c@x", "d@x"}}, {Claim: "off", Cases: []string{"e@x"}}}}}
	rs := mutants.MergeResults(old, fresh, []string{"m1", "m2", "m3", "m4"})
	rs = mutants.MergeResults(rs, []mutants.Result{{Provider: "m2", Mistake: "lies", Seconds: 30}, {Provider: "m3", Mistake: "aliases", Equivalent: "nothing writes", Seconds: 30},
		{Provider: "m4", Mistake: "informs", Caught: []string{"i@x"}}}, []string{"m1", "m2", "m3", "m4"})
	if len(rs) != 4 || rs[0].Provider != "m1" || !rs[0].Killed() || rs[3].Killed() {
		t.Fatalf("merged: %+v", rs)
	}
	md := MutationTable(rs)
	for _, want := range []string{
		"| `m1` | forgets | yes | `on`, `off` | `a@x`, `b@x`, `c@x` and 2 more (and 1 informing) |",
		"| `m2` | lies | **no** | none | none: a case is missing |",
		"| `m3` | aliases | no: equivalent | none | none can: nothing writes |",
		// Caught by a case that only informs: it would certify.
		"| `m4` | informs | **no** | none | none: only informing cases failed (i@x), so it would certify; a blocking case is missing |",
		"4 mutants: 1 killed (a claim the prototype meets is not conformant on them), 1 equivalent, 2 surviving.",
		"the 4 runs took 2m30s in all",
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

// Results judged on other suites, or missing for a mutant of the
// catalogue, make the table stale.
func TestStaleMutations(t *testing.T) {
	rs := []mutants.Result{{Provider: "a", SuiteDigest: "new"}, {Provider: "b", SuiteDigest: "old"}, {Provider: "c"}}
	got := StaleMutations(rs, []string{"a", "b", "c", "d"}, "new")
	want := []string{
		"b was judged on other suites (old; these are new)",
		"c was judged on other suites (unrecorded; these are new)",
		"d has no result",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stale:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
