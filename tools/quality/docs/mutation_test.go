package docs

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/build/mutants"
)

func TestMutationTableAndMerge(t *testing.T) {
	old := []mutants.Result{
		{Provider: "m1", Mistake: "forgets", Seconds: 60},
		{Provider: "gone", Mistake: "was removed", Caught: []string{"x@c"}},
	}
	fresh := []mutants.Result{{Provider: "m1", Mistake: "forgets (see \"x.\") a lot. Then more.", Caught: []string{"a@x", "b@x", "c@x", "d@x", "e@x", "i@x"}, Seconds: 90,
		Breaks: []mutants.Break{{Claim: "on", Cases: []string{"a@x", "b@x", "c@x", "d@x"}}, {Claim: "off", Cases: []string{"e@x"}}}}}
	rs := mutants.MergeResults(old, fresh, []string{"m1", "m2", "m3", "m4"})
	rs = mutants.MergeResults(rs, []mutants.Result{{Provider: "m2", Mistake: "lies", Seconds: 30}, {Provider: "m3", Mistake: "aliases", Equivalent: "nothing writes", Seconds: 30},
		{Provider: "m4", Mistake: "informs", Caught: []string{"i@x"}}}, []string{"m1", "m2", "m3", "m4"})
	if len(rs) != 4 || rs[0].Provider != "m1" || !rs[0].Killed() || rs[3].Killed() {
		t.Fatalf("merged: %+v", rs)
	}
	md := MutationTable(rs)
	if strings.Contains(md, "Then more") {
		t.Errorf("the table gives a mistake past its first sentence:\n%s", md)
	}
	for _, want := range []string{
		// A column a claim broken, its name written once.
		"| mutant | its mistake | `on` | `off` | blocking cases that caught it |\n|---|---|---|---|---|\n",
		"| `m1` | forgets (see \"x.\") a lot. | ✗ | ✗ | 5 (+1 informing) |",
		"| `m2` | lies | | | **not killed**: none: a case is missing |",
		"| `m3` | aliases | | | none can, equivalent: nothing writes |",
		// Caught by a case that only informs: it would certify.
		"| `m4` | informs | | | **not killed**: none: only informing cases failed (i@x), so it would certify; a blocking case is missing |",
		// What killed means and where the record is, the page says above.
		"\n4 mutants: 1 killed, 1 equivalent, 2 surviving; the 4 runs took 2m30s in all.\n",
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

// A mutant no claim broke, judged on other suites, or one missing from
// the results, makes the table stale; a break stays as long as one case
// it rests on runs what it ran and blocks its claim.
func TestStaleMutations(t *testing.T) {
	kill := func(provider string, digests map[string]string) mutants.Result {
		return mutants.Result{Provider: provider, SuiteDigest: "old", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/x@c", "s/y@c"}, Digests: digests}}}
	}
	rs := []mutants.Result{
		{Provider: "a", SuiteDigest: "new"},
		{Provider: "b", SuiteDigest: "old"},
		{Provider: "c"},
		kill("kept", map[string]string{"s/x@c": "dx", "s/y@c": "dy"}),
		// s/x@c still holds, so the break stands.
		kill("changed", map[string]string{"s/x@c": "dx", "s/y@c": "dy-before"}),
		kill("all-changed", map[string]string{"s/x@c": "dx-before", "s/y@c": "dy-before"}),
		kill("unrecorded", nil),
		{Provider: "gone", SuiteDigest: "old", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/z@c"}, Digests: map[string]string{"s/z@c": "dz"}}}},
		{Provider: "informs", SuiteDigest: "old", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/i@c"}, Digests: map[string]string{"s/i@c": "di"}}}},
		// A probe that contradicted its gates made every case block.
		{Provider: "contradicted", SuiteDigest: "old", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/i@c"}, Digests: map[string]string{"s/i@c": "di"}, Contradicted: true}}},
	}
	now := Suites{
		Digest:   "new",
		Cases:    map[string]string{"s/x@c": "dx", "s/y@c": "dy", "s/i@c": "di"},
		Blocking: map[string]map[string]bool{"on": {"s/x@c": true, "s/y@c": true}},
	}
	got := StaleMutations(rs, []string{"a", "b", "c", "d", "kept"}, now)
	want := []string{
		"b: broke no claim on other suites (old; these are new): any case added since may catch it",
		"c: broke no claim on other suites (unrecorded; these are new): any case added since may catch it",
		"all-changed: no case of its break of on holds: s/x@c changed since; s/y@c changed since",
		"unrecorded: no case of its break of on holds: s/x@c was recorded without what it ran; s/y@c was recorded without what it ran",
		"gone: no case of its break of on holds: s/z@c the suites no longer plan",
		"informs: no case of its break of on holds: s/i@c no longer blocks it",
		"d: has no result",
	}
	var lines []string
	for _, s := range got {
		lines = append(lines, s.String())
	}
	if strings.Join(StaleNames(got), ",") != "b,c,all-changed,unrecorded,gone,informs,d" {
		t.Errorf("to rerun: %v", StaleNames(got))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stale:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Only results judged on the suites as they are get their cases' digests
// filled in, and only those missing.
func TestRecordDigests(t *testing.T) {
	rs := []mutants.Result{
		{Provider: "now", SuiteDigest: "new", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/x@c", "s/y@c"}, Digests: map[string]string{"s/y@c": "kept"}}}},
		{Provider: "before", SuiteDigest: "old", Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/x@c"}}}},
	}
	now := Suites{Digest: "new", Cases: map[string]string{"s/x@c": "dx", "s/y@c": "dy"}}
	if !RecordDigests(rs, now) {
		t.Fatal("filled nothing")
	}
	if got := rs[0].Breaks[0].Digests; got["s/x@c"] != "dx" || got["s/y@c"] != "kept" {
		t.Errorf("judged on these suites: %v", got)
	}
	if got := rs[1].Breaks[0].Digests; got != nil {
		t.Errorf("judged on other suites, filled with these suites' digests: %v", got)
	}
	if RecordDigests(rs, now) {
		t.Error("filled again")
	}
}

// Cases that no longer show what they showed leave the table; those that
// still do stay, and so do informing catches still planned.
func TestDropChanged(t *testing.T) {
	rs := []mutants.Result{
		{Provider: "m", SuiteDigest: "old", Caught: []string{"s/x@c", "s/y@c", "s/open@c", "s/removed@c"},
			Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/x@c", "s/y@c"}, Digests: map[string]string{"s/x@c": "dx", "s/y@c": "dy-before"}}}},
		{Provider: "now", SuiteDigest: "new", Caught: []string{"s/y@c"},
			Breaks: []mutants.Break{{Claim: "on", Cases: []string{"s/y@c"}, Digests: map[string]string{"s/y@c": "dy"}}}},
	}
	now := Suites{Digest: "new", Cases: map[string]string{"s/x@c": "dx", "s/y@c": "dy", "s/open@c": "do"},
		Blocking: map[string]map[string]bool{"on": {"s/x@c": true, "s/y@c": true}}}
	if !DropChanged(rs, now) {
		t.Fatal("dropped nothing")
	}
	b := rs[0].Breaks[0]
	if strings.Join(b.Cases, ",") != "s/x@c" || len(b.Digests) != 1 || b.Digests["s/x@c"] != "dx" {
		t.Errorf("break after: %+v", b)
	}
	if got := strings.Join(rs[0].Caught, ","); got != "s/x@c,s/open@c" {
		t.Errorf("caught after: %s", got)
	}
	if strings.Join(rs[1].Breaks[0].Cases, ",") != "s/y@c" {
		t.Errorf("a result judged on these suites was touched: %+v", rs[1])
	}
	if DropChanged(rs, now) {
		t.Error("dropped again")
	}
	if stale := StaleMutations(rs, nil, now); len(stale) != 0 {
		t.Errorf("a break with a case that holds is stale: %v", stale)
	}
	// Once every case of a break is dropped, the mutant is stale, and says
	// why although no case is left to name.
	now.Cases["s/x@c"] = "dx-after"
	DropChanged(rs, now)
	stale := StaleMutations(rs, nil, now)
	if len(stale) != 1 || !strings.Contains(stale[0].String(), "m: no case of its break of on holds: each changed") {
		t.Errorf("a break left without cases: %v", stale)
	}
}

// A legal variant certifies, or its "certified" column names each claim it
// does not certify with the cases that refused it: a defect of the suite.
func TestVariantTableNamesWhatAVariantDoesNotCertify(t *testing.T) {
	md := MutationTable([]mutants.Result{
		{Provider: "v1", Mistake: "orders otherwise", Legal: "R4 (open)", Seconds: 60},
		{Provider: "v2", Mistake: "words otherwise", Legal: "R9", Seconds: 30,
			Breaks: []mutants.Break{{Claim: "on", Cases: []string{"a@x", "b@x"}}}},
	})
	for _, want := range []string{
		"| `v1` | orders otherwise | R4 (open) | yes |",
		"| `v2` | words otherwise | R9 | **no** (a defect of the suite): `on` (a@x, b@x) |",
		"\n2 legal variants: 1 certified on every claim the prototype earns, 1 not; the 2 runs took 1m30s in all.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
