package report

import (
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A reviewer opening report.html reads the verdict first. On a green run
// and on a failing one (a mutant: a blocking failure with its reason and
// an informing one) the browser's page says the verdict in its title and
// its first block, in words and colour; on the failing run that block
// names each failure with its reason and marks the informing one.

var (
	pageRed   = color.RGBA{0xcf, 0x22, 0x2e, 0xff}
	pageGreen = color.RGBA{0x2d, 0xa4, 0x4e, 0xff}
	pageAmber = color.RGBA{0xd4, 0xa7, 0x2c, 0xff}
	pageGrey  = color.RGBA{0xea, 0xee, 0xf2, 0xff}
)

// runAt is a run that began at began: its facts, and timings.json in dir
// as a run over several processes writes it, one cell per process.
func runAt(t *testing.T, dir string, began time.Time, outcomes []Outcome) About {
	t.Helper()
	cells := map[string]bool{}
	tm := runTimings{Began: began, Seconds: 95}
	for i, o := range outcomes {
		if !cells[o.Cell] {
			cells[o.Cell] = true
			tm.Cells = append(tm.Cells, cellTiming{Target: o.Target, Cell: o.Cell, Began: began.Add(time.Duration(i) * time.Second), StartSeconds: 9, NodeSeconds: 3, StopSeconds: 2})
		}
	}
	data, err := json.Marshal(tm)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TimingsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return About{RunID: "r20261205-abc", Began: began, Seconds: 95, Version: "draconform v0.9.0 (go1.26.8)",
		Command: []string{"/tmp/go-build1/exe/draconform", "run", "--provider", "prototype", "--golden", "docs/golden-outcomes.json"}}
}

// casesAt gives each outcome a start time in its cell, one after another.
func casesAt(began time.Time, outcomes []Outcome) []Outcome {
	next := map[string]time.Time{}
	for i := range outcomes {
		o := &outcomes[i]
		at, ok := next[o.Cell]
		if !ok {
			at = began.Add(12 * time.Second)
		}
		o.Began = at
		next[o.Cell] = end(at, o.Seconds+0.5)
	}
	return outcomes
}

func TestGreenRunReadsConformantFirst(t *testing.T) {
	bin := browser(t)
	dir := t.TempDir()
	began := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	outcomes := casesAt(began, []Outcome{
		{ID: "kep6406-api/a@capacity-on", Target: "prototype", Suite: "kep6406-api", Cell: "capacity-on", State: Passed, Seconds: 4},
		{ID: "kep6406-api/b@capacity-on", Target: "prototype", Suite: "kep6406-api", Cell: "capacity-on", State: Passed, Seconds: 6,
			Measurements: []string{"restart: kube-apiserver with {} ready in 3.10s"}},
		{ID: "kep6406-api/c@defaults", Target: "prototype", Suite: "kep6406-api", Cell: "defaults", State: Passed, Seconds: 3},
		{ID: "kep6406-api/d@gate-off", Target: "prototype", Suite: "kep6406-api", Cell: "gate-off", State: Skipped, Seconds: 0.1,
			Message: "the provider cannot run this cell", Inapplicable: true},
		{ID: "kep6406-kubelet/e@capacity-on", Target: "prototype", Suite: "kep6406-kubelet", Cell: "capacity-on", State: Skipped, Seconds: 0.1,
			Message: "needs a kubelet node with the test driver"},
	})
	about := runAt(t, dir, began, outcomes)
	about.Golden = "matches docs/golden-outcomes.json (prototype)"
	run := Run{CellOrder: []string{"defaults", "capacity-on", "gate-off"}, About: about, Verdicts: []Verdict{
		{Claim: "kep6406-api", Title: "KEP-6406's API", Target: "prototype", State: Conformant, Reason: "all 3 required cases passed"},
	}}
	dom, img := render(t, bin, dir, outcomes, run)
	top := verdictBlock(t, dom)
	for _, want := range []string{`class="badge pass">CONFORMANT<`, `run PASSED`, "No case failed."} {
		if !strings.Contains(top, want) {
			t.Errorf("the page's first block lacks %q:\n%s", want, top)
		}
	}
	if !strings.Contains(dom, "<title>CONFORMANT · run passed · draconform r20261205-abc</title>") {
		t.Errorf("the page's title does not say the verdict:\n%s", dom[:min(len(dom), 400)])
	}
	for _, want := range []string{
		`<td class="na" title=`, `<td class="lack" title=`, // the two skips apart
		`class="restart"`, `class="start"`, `prototype/capacity-on, 1 restart`, // the timeline
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := countColorIn(img, pageGreen, 110); n < 2000 {
		t.Errorf("the screenshot's top has %d pixels of the pass green; the verdict is not shown first in colour", n)
	}
	if n := countColorIn(img, pageRed, 110); n > 0 {
		t.Errorf("a green run's screenshot has %d pixels of the failure red at its top", n)
	}
	for name, c := range map[string]color.RGBA{"amber (a lack)": pageAmber, "grey (does not apply)": pageGrey} {
		if n := countColorIn(img, c, 1<<20); n < 300 {
			t.Errorf("the screenshot has %d pixels of %s", n, name)
		}
	}
}

func TestFailingRunNamesEachFailureFirst(t *testing.T) {
	bin := browser(t)
	dir := t.TempDir()
	began := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	reason := "step 2 at suites/kep6406-scheduling.yaml:348, pod p1 is scheduled:\n" +
		"  claim p1-extended-resources request 0: capacity\n    want: {memory: 8Gi}\n    got:  <none>"
	outcomes := casesAt(began, []Outcome{
		{ID: "kep6406-scheduling/copies-capacity@capacity-on", Target: "prototype-explicit-name-only", Suite: "kep6406-scheduling", Cell: "capacity-on",
			State: Failed, Seconds: 7, Message: reason},
		{ID: "kep6406-scheduling/implicit-name@capacity-on", Target: "prototype-explicit-name-only", Suite: "kep6406-scheduling", Cell: "capacity-on",
			State: Failed, Seconds: 5, Contested: true, Informing: true, Message: "step 1 at suites/kep6406-scheduling.yaml:410, the implicit name is served:\n  want 1 request, got 0"},
		{ID: "kep6406-api/a@capacity-on", Target: "prototype-explicit-name-only", Suite: "kep6406-api", Cell: "capacity-on", State: Passed, Seconds: 3},
	})
	about := runAt(t, dir, began, outcomes)
	about.Golden, about.GoldenDiffs = "2 deviations from docs/golden-outcomes.json", 2
	run := Run{CellOrder: []string{"capacity-on"}, About: about, Verdicts: []Verdict{
		{Claim: "kep6406-scheduling", Title: "KEP-6406 in the scheduler", Target: "prototype-explicit-name-only", State: NotConformant,
			Reason: "1 of 2 required cases did not pass", Blocking: []string{"kep6406-scheduling/copies-capacity@capacity-on: failed"}},
	}}
	dom, img := render(t, bin, dir, outcomes, run)
	top := verdictBlock(t, dom)
	for _, want := range []string{
		`class="badge fail">NOT CONFORMANT<`, `run FAILED`,
		"2 cases failed: 1 blocking, 1 informing (never blocking).", "2 outcomes differ from the golden table.",
		"Blocking failures (1)", `<a href="#failure-1"><b>[prototype-explicit-name-only] kep6406-scheduling/copies-capacity@capacity-on</b></a>`,
		"want: {memory: 8Gi}", "got:  &lt;none&gt;",
		"rerun: draconform run --provider prototype-explicit-name-only --cells capacity-on --focus 'kep6406-scheduling/copies-capacity@capacity-on'",
		"Informing failures (1): reported, never blocking", "informing: a contested reading of the KEP, never blocking", "want 1 request, got 0",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("the page's first block lacks %q:\n%s", want, top)
		}
	}
	if !strings.Contains(dom, "<title>NOT CONFORMANT · run failed · draconform r20261205-abc</title>") {
		t.Errorf("the page's title does not say the verdict:\n%s", dom[:min(len(dom), 400)])
	}
	for _, want := range []string{`<a href="#failure-1">0/2 F2</a>`, `id="failure-1"`, `id="failure-2"`,
		"2 deviations from docs/golden-outcomes.json", "draconform run --provider prototype --golden docs/golden-outcomes.json"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := countColorIn(img, pageRed, 110); n < 2000 {
		t.Errorf("the screenshot's top has %d pixels of the failure red; the verdict is not shown first in colour", n)
	}
	if n := countColorIn(img, pageGreen, 110); n > 0 {
		t.Errorf("the screenshot's top has %d pixels of the pass green on a failing run", n)
	}
}

// verdictBlock is the page's first block: what the body holds before
// its first table, which must be the verdict's.
func verdictBlock(t *testing.T, dom string) string {
	t.Helper()
	body := dom[strings.Index(dom, "<body>")+len("<body>"):]
	first := strings.TrimSpace(body)
	if !strings.HasPrefix(first, `<section id="verdict"`) {
		t.Errorf("the page does not begin with the verdict: %.300s", first)
	}
	if i := strings.Index(body, "</section>"); i >= 0 {
		return body[:i]
	}
	if i := strings.Index(body, "<h2>Matrix"); i >= 0 {
		return body[:i]
	}
	return body
}

// countColorIn counts the pixels of a colour in the top rows of img.
func countColorIn(img image.Image, want color.RGBA, rows int) int {
	b := img.Bounds()
	if b.Max.Y > b.Min.Y+rows {
		b.Max.Y = b.Min.Y + rows
	}
	return countColor(subImage{img, b}, want)
}

type subImage struct {
	image.Image
	r image.Rectangle
}

func (s subImage) Bounds() image.Rectangle { return s.r }
