package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// countShares stands in for the merge's refusals (the runner's, which the
// CLI passes): a share missing from the split.
func countShares(parts []MergedPart) error {
	if len(parts) != parts[0].Count {
		return fmt.Errorf("missing shard of the plan (%d of %d given)", len(parts), parts[0].Count)
	}
	return nil
}

// writeMergedBundle makes the bundle of a plan run as 2 shares: the first
// reported s/a@on, the second s/b@on.
func writeMergedBundle(t *testing.T) string {
	t.Helper()
	run := t.TempDir()
	if err := WriteAccess(run, Access{Cluster: ClusterStarted}); err != nil {
		t.Fatal(err)
	}
	a := report.Outcome{ID: "s/a@on", Suite: "s", Cell: "on", Target: "impl", State: report.Passed}
	b := report.Outcome{ID: "s/b@on", Suite: "s", Cell: "on", Target: "impl", State: report.Failed, Message: "x"}
	outcomes := []report.Outcome{a, b}
	junit, err := report.JUnit(types.Report{}, outcomes, run)
	if err != nil {
		t.Fatal(err)
	}
	verdict, _, _ := judge("c", outcomes, nil)
	for name, v := range map[string]any{"outcomes.json": outcomes, "verdicts.json": []report.Verdict{verdict}, "cluster-facts.json": []any{}} {
		data, _ := json.Marshal(v)
		_ = os.WriteFile(filepath.Join(run, name), data, 0o644)
	}
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), junit, 0o644)
	_ = os.WriteFile(filepath.Join(run, "e2e.log"), []byte("...\nverdicts:\n  NOT CONFORMANT c on impl\n"), 0o644)
	part := func(i int, o report.Outcome) MergedPart {
		return MergedPart{Index: i, Count: 2, PlanDigest: "p", SuitesDigest: "abc", Processes: []string{fmt.Sprintf("impl/on (part %d of 2)", i)},
			Outcomes: []string{o.Name()}, OutcomesDigest: OutcomesDigest([]report.Outcome{o}), PartSums: "0"}
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "d.example.com", Image: "img:1", Contact: "a@b", KubernetesVersion: "v1.37.2"}
	err = Write(dir, Inputs{RunDir: run, Log: filepath.Join(run, "e2e.log"), Product: p, Command: "draconform certify --shard=1/2\ndraconform merge --bundle=b",
		Version: map[string]string{"suiteDigest": "abc"}, Verdict: verdict, Merged: &Merged{Format: MergedFormat, Parts: []MergedPart{part(1, a), part(2, b)}}})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAMergedBundleVerifies(t *testing.T) {
	dir := writeMergedBundle(t)
	if err := VerifyMerged(dir, "abc", judge, countShares); err != nil {
		t.Fatalf("a fresh merged bundle does not verify:\n%v", err)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, ReadmeFile))
	if !strings.Contains(string(readme), "| 2/2 | sha256:p | sha256:abc | 1 | 1 |") {
		t.Errorf("README.md does not list the shares:\n%s", readme)
	}
	// A bundle of one run still verifies as before, with or without a check.
	if err := VerifyMerged(writeBundle(t), "abc", judge, countShares); err != nil {
		t.Errorf("a bundle of one run:\n%v", err)
	}
	if err := Verify(dir, "abc", judge); err == nil || !strings.Contains(err.Error(), "a merged bundle, and no check of its shares was given") {
		t.Errorf("a merged bundle verified without its shares checked: %v", err)
	}
}

// A merged bundle whose parts were tampered with, or which lacks a share,
// is refused with the reason, fresh sums or not.
func TestAnEditedMergedBundleIsRefused(t *testing.T) {
	rewriteMerged := func(d string, edit func(*Merged)) {
		var m Merged
		if err := readJSON(d, MergedFile, &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		data, _ := json.Marshal(m)
		_ = os.WriteFile(filepath.Join(d, MergedFile), data, 0o644)
	}
	resum := func(d string) {
		if err := writeSums(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		edit func(d string)
		says []string
	}{
		{"a share's record edited", func(d string) { rewriteMerged(d, func(m *Merged) { m.Parts[1].PlanDigest = "q" }) },
			[]string{"shards.json was changed after the bundle was made"}},
		{"a share's outcome flipped, sums redone", func(d string) {
			rewriteJSON(t, filepath.Join(d, OutcomesFile), func(os []report.Outcome) []report.Outcome { os[1].State = report.Passed; return os })
			resum(d)
		}, []string{"the outcomes of shard 2/2 in outcomes.json are not the ones it reported", "is passed in outcomes.json but failed in junit_01.xml"}},
		{"a share left out, sums redone", func(d string) {
			rewriteMerged(d, func(m *Merged) { m.Parts = m.Parts[:1] })
			rewriteJSON(t, filepath.Join(d, OutcomesFile), func(os []report.Outcome) []report.Outcome { return os[:1] })
			resum(d)
		}, []string{"shards.json: missing shard of the plan (1 of 2 given)", "1 cases of c have no outcome"}},
		{"an outcome no share reported", func(d string) {
			rewriteMerged(d, func(m *Merged) { m.Parts[1].Outcomes = nil; m.Parts[1].OutcomesDigest = OutcomesDigest(nil) })
			resum(d)
		}, []string{"outcomes.json: [impl] s/b@on is of no shard shards.json records"}},
		{"two shares reporting one outcome", func(d string) {
			rewriteMerged(d, func(m *Merged) { m.Parts[1].Outcomes = append(m.Parts[1].Outcomes, m.Parts[0].Outcomes...) })
			resum(d)
		}, []string{"shards.json: shards 1/2 and 2/2 both reported [impl] s/a@on"}},
		{"another format", func(d string) {
			rewriteMerged(d, func(m *Merged) { m.Format = "draconform-merged-bundle/v2" })
			resum(d)
		},
			[]string{`shards.json is of format "draconform-merged-bundle/v2"; this draconform reads "draconform-merged-bundle/v1"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeMergedBundle(t)
			tt.edit(dir)
			err := VerifyMerged(dir, "abc", judge, countShares)
			if err == nil {
				t.Fatal("the edited merged bundle verified")
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("problems do not say %q:\n%v", s, err)
				}
			}
		})
	}
}

// A part bundle changed after certify --shard wrote it is refused before
// any merge reads it.
func TestAnEditedPartBundleIsRefused(t *testing.T) {
	run := t.TempDir()
	_ = WriteAccess(run, Access{Cluster: ClusterStarted})
	_ = os.WriteFile(filepath.Join(run, ShardFile), []byte(`{"share":{"index":1,"count":2}}`), 0o644)
	_ = os.WriteFile(filepath.Join(run, "e2e.log"), []byte("share 1/2\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "part")
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "d.example.com", Image: "img:1", Contact: "a@b"}
	if err := WritePart(dir, PartInputs{RunDir: run, Log: filepath.Join(run, "e2e.log"), Product: p, Claim: "c", Command: "draconform certify --shard=1/2", Version: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPart(dir)
	if err != nil || got.Claim != "c" || got.Product.Name != "N" || got.Access.Cluster != ClusterStarted {
		t.Fatalf("a fresh part: %+v, %v", got, err)
	}
	_ = os.WriteFile(filepath.Join(dir, ShardFile), []byte(`{"share":{"index":2,"count":2}}`), 0o644)
	if _, err := ReadPart(dir); err == nil || !strings.Contains(err.Error(), "shard.json was changed after the bundle was made") {
		t.Errorf("an edited part was read: %v", err)
	}
	// A whole bundle is no part, nor a part a whole bundle.
	if _, err := ReadPart(writeBundle(t)); err == nil || !strings.Contains(err.Error(), "which is not a file of a bundle") {
		t.Errorf("a whole bundle read as a part: %v", err)
	}
}
