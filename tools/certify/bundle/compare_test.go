package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// certifiedRun is one run's outcomes of the claim c (see judge), as a run
// on a cluster gives them: run is the run's own name in its messages,
// seconds how long each case took.
func certifiedRun(run string, seconds float64) []report.Outcome {
	return []report.Outcome{
		// A note may quote the run's own objects.
		{ID: "s/a@on", Suite: "s", Cell: "on", Target: "kubeconfig", State: report.Passed, Seconds: seconds, Gap: "closed",
			Note: "gap closed in this cluster (pod p2 was bound to node dc-" + run + "-a1f142-n1)"},
		{ID: "s/b@on", Suite: "s", Cell: "on", Target: "kubeconfig", State: report.Failed, Seconds: 2 * seconds,
			Message: "pod dc-" + run + "-b/p stayed pending", Diagnostics: "events of dc-" + run + "-b", Measurements: []string{"took 3s"}},
	}
}

// writeRunBundle writes, with Write, the bundle of a run with these
// outcomes and verdict, made by command on a cluster of that version.
func writeRunBundle(t *testing.T, outcomes []report.Outcome, verdict report.Verdict, command string) string {
	t.Helper()
	run := t.TempDir()
	if err := WriteAccess(run, Access{Cluster: ClusterVisited, Confined: "yes"}); err != nil {
		t.Fatal(err)
	}
	junit, err := report.JUnit(types.Report{}, outcomes, run)
	if err != nil {
		t.Fatal(err)
	}
	facts := []map[string]string{{"server": command}}
	for name, v := range map[string]any{"outcomes.json": outcomes, "verdicts.json": []report.Verdict{verdict}, "cluster-facts.json": facts} {
		data, _ := json.Marshal(v)
		_ = os.WriteFile(filepath.Join(run, name), data, 0o644)
	}
	_ = os.WriteFile(filepath.Join(run, "junit.xml"), junit, 0o644)
	_ = os.WriteFile(filepath.Join(run, "e2e.log"), []byte(command+"\nverdicts:\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "bundle")
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "d.example.com", Image: "img:1", Contact: "a@b", KubernetesVersion: "v1.37.2"}
	if err := Write(dir, Inputs{RunDir: run, Log: filepath.Join(run, "e2e.log"), Product: p, Command: command,
		Version: map[string]string{"suiteDigest": "abc"}, Verdict: verdict}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// certify's bundle, and the Sonobuoy plugin's of the same cluster: another
// run, with its own names in its messages, other timings, another command
// line and other facts. Each bundle verifies on its own.
func certifyAndPlugin(t *testing.T, pluginOutcomes []report.Outcome, pluginVerdict func(report.Verdict) report.Verdict) (string, string) {
	t.Helper()
	oa := certifiedRun("run01", 1)
	va, _, _ := judge("c", oa, nil)
	va.Target = "kubeconfig"
	va.Reason, va.Required, va.Blocking = "1 of 2 required cases did not pass", 2, []string{"s/b@on failed: pod dc-run01-b/p stayed pending"}
	vb := va
	vb.Blocking = []string{"s/b@on failed: pod dc-run02-b/p stayed pending"}
	if pluginVerdict != nil {
		vb = pluginVerdict(vb)
	}
	a := writeRunBundle(t, oa, va, "draconform certify --out=_output/c")
	b := writeRunBundle(t, pluginOutcomes, vb, "draconform certify --out=/tmp/draconform --sonobuoy")
	return a, b
}

// Two runs on one cluster that reach the same verdict by the same
// outcomes are the same, however their timings, messages, commands and
// facts differ.
func TestCompareSameVerdictAndOutcomes(t *testing.T) {
	a, b := certifyAndPlugin(t, certifiedRun("run02", 7), nil)
	diffs, n, err := Compare(a, b)
	if err != nil || len(diffs) > 0 || n != 2 {
		t.Errorf("Compare: %d outcomes compared, %v, differences:\n%s", n, err, strings.Join(diffs, "\n"))
	}
}

// An outcome flipped, the verdict unchanged, is a difference, named by
// its case.
func TestCompareAFlippedOutcome(t *testing.T) {
	flipped := certifiedRun("run02", 1)
	flipped[0].State, flipped[0].Message = report.Skipped, "no node"
	a, b := certifyAndPlugin(t, flipped, nil)
	diffs, _, err := Compare(a, b)
	if err != nil || len(diffs) != 1 || !strings.Contains(diffs[0], "s/a@on on kubeconfig: passed, closed, gap closed") || !strings.Contains(diffs[0], "in the second (no node)") {
		t.Errorf("Compare: %v, differences:\n%s", err, strings.Join(diffs, "\n"))
	}
	// A case the second run has no outcome of is one too.
	a, b = certifyAndPlugin(t, certifiedRun("run02", 1)[1:], nil)
	if diffs, _, _ := Compare(a, b); len(diffs) != 1 || !strings.Contains(diffs[0], "s/a@on on kubeconfig: passed, closed") || !strings.Contains(diffs[0], "in the first, no outcome in the second") {
		t.Errorf("a missing outcome: differences:\n%s", strings.Join(diffs, "\n"))
	}
}

// Another verdict by the same outcomes is a difference: of its state, or
// of its counts and the cases it rests on.
func TestCompareAnotherVerdict(t *testing.T) {
	a, b := certifyAndPlugin(t, certifiedRun("run02", 1), func(v report.Verdict) report.Verdict {
		v.State, v.Reason, v.Blocking, v.Passed = report.Conformant, "all 2 required cases passed", nil, 2
		return v
	})
	diffs, _, err := Compare(a, b)
	if err != nil || len(diffs) != 1 || !strings.Contains(diffs[0], "verdict of c on kubeconfig: NOT CONFORMANT in the first") || !strings.Contains(diffs[0], "CONFORMANT in the second") {
		t.Errorf("Compare: %v, differences:\n%s", err, strings.Join(diffs, "\n"))
	}
	a, b = certifyAndPlugin(t, certifiedRun("run02", 1), func(v report.Verdict) report.Verdict {
		v.Blocking = []string{"s/a@on failed: x"}
		return v
	})
	if diffs, _, _ := Compare(a, b); len(diffs) != 1 || !strings.Contains(diffs[0], "blocking [s/b@on]") || !strings.Contains(diffs[0], "blocking [s/a@on]") {
		t.Errorf("other blocking cases: differences:\n%s", strings.Join(diffs, "\n"))
	}
}

// A note that differs beyond the run's own names is a difference.
func TestCompareANoteThatSaysOtherwise(t *testing.T) {
	other := certifiedRun("run02", 1)
	other[0].Note = "gap closed in this cluster (pod p2 was bound to node dc-run02-a1f142-n2)"
	a, b := certifyAndPlugin(t, other, nil)
	if diffs, _, err := Compare(a, b); err != nil || len(diffs) != 1 || !strings.Contains(diffs[0], "s/a@on on kubeconfig") {
		t.Errorf("Compare: %v, differences:\n%s", err, strings.Join(diffs, "\n"))
	}
}
