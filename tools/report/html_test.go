package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func renderPage(t *testing.T, outcomes []Outcome, run Run, dir string) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, outcomes, run, dir); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The header of facts says what ran, when, for how long, and the golden
// result, in that order; a fact the run did not record is left out, and a
// run without a golden table says so.
func TestHTMLHeaderFacts(t *testing.T) {
	about := About{RunID: "r20261205-abc", Began: time.Date(2026, 12, 5, 21, 4, 5, 0, time.FixedZone("CET", 3600)), Seconds: 185.4,
		Version: "draconform v0.9.0 (go1.26.8)", Command: []string{"/tmp/go-build7/b001/exe/draconform", "run", "--provider", "prototype", "--suite", "kep6406-api"},
		Golden: "3 deviations from docs/golden-outcomes.json", GoldenDiffs: 3}
	page := renderPage(t, nil, Run{About: about}, t.TempDir())
	want := `<table class="facts">` +
		`<tr><th>run</th><td>r20261205-abc</td></tr>` +
		`<tr><th>date</th><td>2026-12-05 20:04:05 UTC</td></tr>` +
		`<tr><th>duration</th><td>3m 05s</td></tr>` +
		`<tr><th>draconform</th><td>draconform v0.9.0 (go1.26.8)</td></tr>` +
		`<tr><th>command</th><td>draconform run --provider prototype --suite kep6406-api</td></tr>` +
		`<tr><th>golden</th><td>3 deviations from docs/golden-outcomes.json</td></tr></table>`
	if !strings.Contains(page, want) {
		t.Errorf("the header of facts is not\n%s\nin:\n%s", want, page)
	}
	if !strings.Contains(page, "run FAILED") || !strings.Contains(page, "3 outcomes differ from the golden table.") {
		t.Error("a run whose outcomes differ from the golden table does not read as failed")
	}
	page = renderPage(t, nil, Run{About: About{RunID: "r1"}}, t.TempDir())
	if !strings.Contains(page, `<tr><th>run</th><td>r1</td></tr><tr><th>golden</th><td>not compared (no --golden)</td></tr></table>`) {
		t.Errorf("a run with only an id and no golden table has the wrong facts:\n%s", page)
	}
	for _, c := range []struct {
		seconds float64
		want    string
	}{{47.26, "47.3s"}, {60, "1m 00s"}, {3725, "1h 02m"}} {
		if got := duration(c.seconds); got != c.want {
			t.Errorf("duration(%v) = %q, want %q", c.seconds, got, c.want)
		}
	}
}

// report.html shows no machine path and no credential: paths under the
// output folder, the checkout or the home folder are relative to them,
// other machine paths are cut to their name, and every credential a
// command line, a message, a log or the header holds is redacted. API
// paths a message quotes stay as they are.
func TestHTMLShowsNoMachinePathsOrTokens(t *testing.T) {
	out := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	diag := filepath.Join(out, "diagnostics", "x.txt")
	if err := os.MkdirAll(filepath.Dir(diag), 0o755); err != nil {
		t.Fatal(err)
	}
	log := "component log " + filepath.Join(out, "logs", "kube-apiserver.log") + "\nAuthorization: Bearer abc.def-secret\n" +
		"kubeconfig " + filepath.Join(home, ".kube", "config") + " token: hunter2token\n"
	if err := os.WriteFile(diag, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	jwt := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
	outcomes := []Outcome{{ID: "s/a@on", Suite: "s", Cell: "on", State: Failed, Diagnostics: diag,
		Message: "step 1: GET /apis/resource.k8s.io/v1/deviceclasses/x with " + jwt + " from /var/lib/draconform/run-7/cache/foo.json failed"}}
	run := Run{Header: "on: kube-apiserver: " + filepath.Join(wd, ".cache", "k8s", "v1.37.2", "kube-apiserver") + " (v1.37.2)",
		About: About{Command: []string{"/tmp/go-build9/exe/draconform", "run", "--kubeconfig", filepath.Join(home, ".kube", "config"),
			"--token", "s3cr3t-value", "--password=hunter2", "--out", filepath.Join(wd, "_output", "r1"), "--focus", "a b"}}}
	page := renderPage(t, outcomes, run, out)
	for _, leak := range []string{out, wd, home + "/", "/tmp/", "/var/lib", "s3cr3t-value", "hunter2", "abc.def-secret", jwt} {
		if strings.Contains(page, leak) {
			t.Errorf("report.html shows %q", leak)
		}
	}
	for _, want := range []string{
		"draconform run --kubeconfig ~/.kube/config --token &lt;redacted&gt; --password=&lt;redacted&gt; --out _output/r1 --focus &#39;a b&#39;",
		`<a href="diagnostics/x.txt">diagnostics/x.txt</a>`, "component log logs/kube-apiserver.log", "Bearer &lt;redacted&gt;",
		"token: &lt;redacted&gt;", "kubeconfig ~/.kube/config",
		"GET /apis/resource.k8s.io/v1/deviceclasses/x with &lt;redacted&gt; from …/foo.json failed",
		"kube-apiserver: .cache/k8s/v1.37.2/kube-apiserver (v1.37.2)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A folder's name that only begins like a root's is not taken for it.
func TestScrubberKeepsNamesApart(t *testing.T) {
	s := newScrubber("/tmp/run")
	for in, want := range map[string]string{
		"/tmp/run/report.html":       "report.html",
		"/tmp/run":                   ".",
		"(/tmp/run)":                 "(.)",
		"/tmp/run2/x.txt":            "…/x.txt",
		"/api/v1/namespaces/default": "/api/v1/namespaces/default",
	} {
		if got := s.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// A narrowed run makes every claim not applicable for one reason, and a
// cluster that did not start fails every case of its cell alike: the
// first block says the reason once and shows the first few failures,
// linking to the rest, so the verdict and the matrix stay near the top.
func TestHTMLFirstBlockStaysShort(t *testing.T) {
	narrowed := "a narrowed run supports no claim"
	var verdicts []Verdict
	for _, c := range []string{"a", "b", "c"} {
		verdicts = append(verdicts, Verdict{Claim: c, Title: "claim " + c, Target: "prototype", State: NotApplicable, Reason: narrowed})
	}
	verdicts = append(verdicts, Verdict{Claim: "d", Title: "claim d", Target: "prototype", State: NotApplicable, Reason: "none applies"})
	var outcomes []Outcome
	for i := range 7 {
		outcomes = append(outcomes, Outcome{ID: fmt.Sprintf("s/c%d@on", i), Suite: "s", Cell: "on", State: Failed, Message: "cell on: the cluster failed to start"})
	}
	page := renderPage(t, outcomes, Run{Verdicts: verdicts}, t.TempDir())
	for _, want := range []string{
		`<b>NOT APPLICABLE</b> a, b, c on prototype: a narrowed run supports no claim</div>`,
		`<b>NOT APPLICABLE</b> d on prototype: claim d. none applies</div>`,
		"Blocking failures (7)", `<a href="#failures">… and 4 more blocking failures below</a>`, `<h2 id="failures">Failures (7)</h2>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<div class="brief">`); n != briefsFirst {
		t.Errorf("the first block shows %d failures, want %d", n, briefsFirst)
	}
}
