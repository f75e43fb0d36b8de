package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// browser finds Debian's headless Chromium. make test installs it and sets
// DRACONFORM_BROWSER_REQUIRED, so there a missing browser fails the test
// rather than skipping it.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("DRACONFORM_BROWSER_REQUIRED") != "" {
		t.Fatal("no headless Chromium (apt-get install chromium-headless-shell), and DRACONFORM_BROWSER_REQUIRED is set")
	}
	t.Skip("no headless Chromium here (apt-get install chromium-headless-shell); make test installs it")
	return ""
}

// A real browser renders report.html: the page it builds holds the verdicts
// and the failing cell, and its screenshot shows the failing cell's red and
// the conformant verdict's green (each the only thing of its colour on this
// page), so the colours a reader relies on do render.
func TestReportRendersInABrowser(t *testing.T) {
	bin := browser(t)
	dir := t.TempDir()
	diag := filepath.Join(dir, "diag.txt")
	_ = os.WriteFile(diag, []byte("scheduler log: <no capacity>\n"), 0o644)
	outcomes := []Outcome{
		{ID: "kep6406-scheduling/a@capacity-on", Target: "prototype", Suite: "kep6406-scheduling", Cell: "capacity-on", State: Passed},
		{ID: "kep6406-scheduling/b@capacity-on", Target: "prototype", Suite: "kep6406-scheduling", Cell: "capacity-on", State: Failed,
			Message: "step 2 at suites/x.yaml:9, expectClaim: request has no capacity", Diagnostics: diag},
		{ID: "feature-absent/c@defaults", Target: "prototype", Suite: "feature-absent", Cell: "defaults", State: Skipped, Message: "needs component restarts"},
	}
	verdicts := []Verdict{
		{Claim: "feature-absent-safe", Title: "KEP-6406 absent, and safe", Target: "prototype", State: Conformant, Reason: "all 1 required cases passed"},
		{Claim: "kep6406-gate-transitions", Title: "KEP-6406 conformant across gate changes", Target: "prototype", State: NotApplicable,
			Reason: "none of its cases applies here"},
	}
	run := Run{CellOrder: []string{"defaults", "capacity-on"}, Header: "prototype/capacity-on: prototype-v1.37.2+kep6406/capacity-on", Verdicts: verdicts}
	dom, img := render(t, bin, dir, outcomes, run)
	for _, want := range []string{
		`CONFORMANT</b> feature-absent-safe on prototype`,
		`NOT APPLICABLE</b> kep6406-gate-transitions on prototype`,
		`<td class="fail" title="kep6406-scheduling in capacity-on: 1 passed, 1 failed (0 informing), 0 skipped (0 for a lack, 0 not applying)"><a href="#failure-1">1/2 F1</a></td>`,
		"scheduler log: &lt;no capacity&gt;",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	red := color.RGBA{0xcf, 0x22, 0x2e, 0xff}
	green := color.RGBA{0x2d, 0xa4, 0x4e, 0xff}
	if n := countColor(img, red); n < 500 {
		t.Errorf("the screenshot has %d pixels of the failure red; the failing cell and verdict are not shown", n)
	}
	if n := countColor(img, green); n < 500 {
		t.Errorf("the screenshot has %d pixels of the pass green; the conformant verdict is not shown", n)
	}
}

// render writes report.html for outcomes and run into dir, and has the
// browser dump its DOM and take its screenshot, which it keeps in the
// test's artifact folder (go test -artifacts keeps it) as report.png.
func render(t *testing.T, bin, dir string, outcomes []Outcome, run Run) (string, image.Image) {
	t.Helper()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, outcomes, run, dir); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1100,1400"}
	dom, err := exec.CommandContext(ctx, bin, append(flags, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", bin, err)
	}
	shot := filepath.Join(t.ArtifactDir(), "report.png")
	if out, err := exec.CommandContext(ctx, bin, append(flags, "--screenshot="+shot, "file://"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("%s --screenshot: %v\n%s", bin, err, out)
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if keep := os.Getenv("DRACONFORM_KEEP_SCREENSHOT"); keep != "" {
		_ = os.WriteFile(strings.TrimSuffix(keep, ".png")+"-"+t.Name()+".png", data, 0o644)
	}
	t.Logf("screenshot: %s", shot)
	return string(dom), img
}

func countColor(img image.Image, want color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				n++
			}
		}
	}
	return n
}
