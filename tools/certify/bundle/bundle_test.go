package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// ginkgoJUnit is the JUnit report of a run before it was written from
// the outcomes: ginkgo's, one testsuite, the case's name in its spec text.
const ginkgoJUnit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2"><testsuite name="draconform" tests="2">
<testcase name="[It] s Suite. [impl] s/a@on [suite:s]" status="passed"></testcase>
<testcase name="[It] s Suite. [impl] s/b@on [suite:s]" status="failed"><failure message="x">x</failure></testcase>
</testsuite></testsuites>`

// judge is the verdict rule of these tests: conformant when every outcome
// passed.
// judge is a claim c resting on cases s/a@on and s/b@on.
func judge(claim string, outcomes []report.Outcome, _ []byte) (report.Verdict, []string, error) {
	if claim != "c" {
		return report.Verdict{}, nil, fmt.Errorf("no claim %s", claim)
	}
	v := report.Verdict{Claim: "c", Target: "impl", State: report.Conformant}
	missing := []string{"s/a@on", "s/b@on"}
	for _, o := range outcomes {
		missing = slices.DeleteFunc(missing, func(id string) bool { return id == o.ID })
		if o.State != report.Passed {
			v.State = report.NotConformant
		}
	}
	return v, missing, nil
}

func writeBundle(t *testing.T) string {
	t.Helper()
	return writeBundleWith(t, nil)
}

// writeBundleWith makes a bundle of a run whose JUnit report is junit, or
// the one a run writes when junit is nil.
func writeBundleWith(t *testing.T, junit []byte) string {
	t.Helper()
	return writeBundleOf(t, junit, Access{Cluster: ClusterVisited, Confined: "yes"})
}

// writeBundleOf makes a bundle of a run that recorded acc of its cluster.
func writeBundleOf(t *testing.T, junit []byte, acc Access) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bundle")
	if err := writeBundleAt(t, junit, acc, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeBundleAt writes a bundle of a small run into dir.
func writeBundleAt(t *testing.T, junit []byte, acc Access, dir string) error {
	t.Helper()
	run := t.TempDir()
	if err := WriteAccess(run, acc); err != nil {
		t.Fatal(err)
	}
	outcomes := []report.Outcome{{ID: "s/a@on", Suite: "s", Target: "impl", State: report.Passed}, {ID: "s/b@on", Suite: "s", Target: "impl", State: report.Failed, Message: "x"}}
	if junit == nil {
		var err error
		if junit, err = report.JUnit(types.Report{}, outcomes, run); err != nil {
			t.Fatal(err)
		}
	}
	verdict, _, _ := judge("c", outcomes, nil)
	// The run judged every claim; the bundle keeps the one it certifies.
	files := map[string]any{"outcomes.json": outcomes, "verdicts.json": []report.Verdict{verdict, {Claim: "other"}}, "cluster-facts.json": []any{}}
	for name, v := range files {
		data, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(run, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), junit, 0o644)
	_ = os.WriteFile(filepath.Join(run, "e2e.log"), []byte("...\nverdicts:\n  NOT CONFORMANT c on impl\n"), 0o644)
	_ = os.WriteFile(filepath.Join(run, "kubeconfig-impl-on"), []byte("client-key-data: secret"), 0o600)
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "d.example.com", Image: "img:1", Contact: "a@b", KubernetesVersion: "v1.37.2"}
	return Write(dir, Inputs{RunDir: run, Log: filepath.Join(run, "e2e.log"), Product: p, Command: "draconform certify --product=p.yaml",
		Version: map[string]string{"suiteDigest": "abc"}, Verdict: verdict})
}

func TestAWrittenBundleVerifies(t *testing.T) {
	dir := writeBundle(t)
	if err := Verify(dir, "abc", judge); err != nil {
		t.Fatalf("a fresh bundle does not verify:\n%v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kubeconfig-impl-on")); err == nil {
		t.Error("the run's kubeconfig was copied into the bundle")
	}
}

// A bundle made before the JUnit report was written from the outcomes
// (ginkgo's report, cases found by their spec text) still verifies, and
// still shows a flipped outcome.
func TestABundleWithGinkgosJUnitVerifies(t *testing.T) {
	dir := writeBundleWith(t, []byte(ginkgoJUnit))
	if err := Verify(dir, "abc", judge); err != nil {
		t.Fatalf("a bundle with ginkgo's JUnit report does not verify:\n%v", err)
	}
	path := filepath.Join(dir, JUnitFile)
	data, _ := os.ReadFile(path)
	_ = os.WriteFile(path, []byte(strings.Replace(string(data), `status="failed"><failure message="x">x</failure>`, `status="passed">`, 1)), 0o644)
	if err := writeSums(dir); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, "abc", judge); err == nil || !strings.Contains(err.Error(), "[impl] s/b@on is failed in outcomes.json but passed in junit_01.xml") {
		t.Errorf("a flipped case in ginkgo's JUnit report: %v", err)
	}
}

// Edits by hand are refused with the reason, each of them.
func TestAnEditedBundleIsRejected(t *testing.T) {
	flip := func(dir string) {
		path := filepath.Join(dir, OutcomesFile)
		data, _ := os.ReadFile(path)
		_ = os.WriteFile(path, []byte(strings.Replace(string(data), `"failed"`, `"passed"`, 1)), 0o644)
	}
	resum := func(dir string) {
		if err := writeSums(dir); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		edit func(dir string)
		says []string
	}{
		{"an outcome flipped", flip, []string{"outcomes.json was changed after the bundle was made"}},
		{"an outcome flipped, sums redone", func(d string) { flip(d); resum(d) },
			[]string{"[impl] s/b@on is passed in outcomes.json but failed in junit_01.xml", "verdicts.json does not follow from outcomes.json: c on impl says not conformant, the outcomes give conformant"}},
		{"a file removed", func(d string) { _ = os.Remove(filepath.Join(d, JUnitFile)) }, []string{"junit_01.xml is missing"}},
		// A run that ended early, sums redone: its verdict may well agree
		// with what it has, but it shows nothing of the cases it lacks.
		{"an outcome removed", func(d string) {
			rewriteJSON(t, filepath.Join(d, OutcomesFile), func(os []report.Outcome) []report.Outcome { return os[:1] })
			resum(d)
		}, []string{"the run did not finish: 1 cases of c have no outcome (first s/b@on)"}},
		{"a second claim's verdict", func(d string) {
			rewriteJSON(t, filepath.Join(d, VerdictsFile), func(vs []report.Verdict) []report.Verdict { return append(vs, report.Verdict{Claim: "other"}) })
			resum(d)
		}, []string{"verdicts.json holds 2 verdicts: a bundle certifies one claim"}},
		{"a file added", func(d string) { _ = os.WriteFile(filepath.Join(d, "extra.txt"), []byte("x"), 0o644) }, []string{"extra.txt is not part of a bundle"}},
		{"other suites", func(string) {}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeBundle(t)
			tt.edit(dir)
			digest := "abc"
			if tt.says == nil {
				digest, tt.says = "def", []string{"made with other suites and fixtures (sha256:abc, this draconform has sha256:def)"}
			}
			err := Verify(dir, digest, judge)
			if err == nil {
				t.Fatal("the edited bundle verified")
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("problems do not say %q:\n%v", s, err)
				}
			}
		})
	}
}

// A credential that reached the run's log must not be published.
func TestABundleWithACredentialIsRefused(t *testing.T) {
	run := t.TempDir()
	for name, data := range map[string]string{"outcomes.json": "[]", "verdicts.json": "[]", "cluster-facts.json": "[]", "junit.xml": ginkgoJUnit, AccessFile: `{"cluster": "visited", "confined": "yes"}`,
		"e2e.log": "I1202 round_trippers.go] Authorization: Bearer abcdefgh12345678\n"} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "d.example.com", Image: "img:1", Contact: "a@b"}
	err := Write(dir, Inputs{RunDir: run, Log: filepath.Join(run, "e2e.log"), Product: p, Command: "draconform certify", Version: map[string]string{}})
	if err == nil || !strings.Contains(err.Error(), "e2e.log:1: a bearer token in a header") {
		t.Fatalf("want the bundle refused, naming the file and line, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, SumsFile)); err == nil {
		t.Error("a refused bundle has its sums written, as if complete")
	}
}

// rewriteJSON edits the JSON list in path.
func rewriteJSON[T any](t *testing.T, path string, edit func([]T) []T) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []T
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(edit(list))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A bundle holds the verdict of the claim it certifies, and no other.
func TestABundleHoldsItsClaimsVerdictOnly(t *testing.T) {
	dir := writeBundle(t)
	var vs []report.Verdict
	data, _ := os.ReadFile(filepath.Join(dir, VerdictsFile))
	if err := json.Unmarshal(data, &vs); err != nil || len(vs) != 1 || vs[0].Claim != "c" {
		t.Errorf("verdicts.json %s", data)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, ReadmeFile))
	if strings.Contains(string(readme), "| other") || !strings.Contains(string(readme), "| c () | impl | **not conformant**") {
		t.Errorf("README.md:\n%s", readme)
	}
}

// The bundle records whether the run's writes were confined, its README
// says so where they were not, and verify refuses a README that hides it.
func TestABundleRecordsItsAccess(t *testing.T) {
	for _, tt := range []struct {
		name   string
		acc    Access
		readme string
	}{
		{"an embedded cluster", Access{Cluster: ClusterStarted}, "The run started the cluster it tested"},
		{"a confined cluster", Access{Cluster: ClusterVisited, Confined: "yes"}, "confined by draconform's admission policy"},
		{"an unconfined cluster", Access{Cluster: ClusterVisited, Confined: "no", Unconfined: true}, "**UNCONFINED.** The run wrote to a cluster where draconform's admission policy did not confine its writes (preflight found: no), because `--allow-unconfined`"},
		{"an older policy", Access{Cluster: ClusterVisited, Confined: "older", Unconfined: true}, "(preflight found: older)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeBundleOf(t, nil, tt.acc)
			if err := Verify(dir, "abc", judge); err != nil {
				t.Fatalf("does not verify:\n%v", err)
			}
			got, err := ReadAccess(dir)
			if err != nil || got != tt.acc {
				t.Errorf("the bundle records %+v (%v), want %+v", got, err, tt.acc)
			}
			readme, _ := os.ReadFile(filepath.Join(dir, ReadmeFile))
			if !strings.Contains(string(readme), tt.readme) {
				t.Errorf("README.md does not say %q:\n%s", tt.readme, readme)
			}
			data, _ := os.ReadFile(filepath.Join(dir, AccessFile))
			if strings.Contains(string(data), `"unconfined": true`) != tt.acc.Unconfined {
				t.Errorf("%s: %s", AccessFile, data)
			}
			if !tt.acc.Unconfined {
				return
			}
			// Hidden from the README, with fresh sums: refused.
			path := filepath.Join(dir, ReadmeFile)
			_ = os.WriteFile(path, []byte(strings.ReplaceAll(string(readme), "UNCONFINED", "Confined")), 0o644)
			if err := writeSums(dir); err != nil {
				t.Fatal(err)
			}
			if err := Verify(dir, "abc", judge); err == nil || !strings.Contains(err.Error(), "access.json records an unconfined run, which README.md does not say") {
				t.Errorf("a README hiding the unconfined run verifies: %v", err)
			}
		})
	}
	// A run that recorded nothing of its access (it never passed its
	// preflight) makes no bundle.
	run := t.TempDir()
	err := Write(filepath.Join(t.TempDir(), "b"), Inputs{RunDir: run, Log: filepath.Join(run, "e2e.log")})
	if err == nil || !strings.Contains(err.Error(), "access.json") {
		t.Errorf("a run without its access record made a bundle: %v", err)
	}
}

// certify --bundle, often run as root, writes into a folder someone else
// may have filled: a link planted where a bundle file goes is refused, and
// what it points to is left as it was.
func TestABundleIsNeverWrittenThroughALink(t *testing.T) {
	dir := writeBundle(t)
	victim := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(victim, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ProductFile, SumsFile, "junit_01.xml"} {
		path := filepath.Join(dir, name)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
		err := writeBundleAt(t, nil, Access{Cluster: ClusterStarted}, dir)
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: a bundle written through a planted link: %v", name, err)
		}
		if data, _ := os.ReadFile(victim); string(data) != "root:secret\n" {
			t.Fatalf("%s: the link's target was overwritten: %q", name, data)
		}
		_ = os.Remove(path)
	}
}
