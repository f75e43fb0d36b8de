package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The docs verb writes both documents, then checks them: an edited one and
// a missing one are each named, with the command that regenerates them.
func TestDocsWriteAndCheck(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "docs", "--out", dir)
	if code != 0 {
		t.Fatalf("write: code %d: %s", code, errs)
	}
	register, trace := filepath.Join(dir, "register.md"), filepath.Join(dir, "traceability.md")
	if want := "wrote " + register + "\nwrote " + trace + "\n"; out != want {
		t.Errorf("write printed %q, want %q (sorted)", out, want)
	}
	if code, _, errs := run(t, "docs", "--out", dir, "--check"); code != 0 {
		t.Fatalf("check after write: code %d: %s", code, errs)
	}

	if err := os.WriteFile(trace, []byte("# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(register); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "docs", "--out", dir, "--check")
	want := register + " is stale: run draconform docs (or make docs)\n" + trace + " is stale: run draconform docs (or make docs)\n"
	if code != 1 || errs != want {
		t.Fatalf("check: code %d, stderr %q, want %q", code, errs, want)
	}
	if out != "" {
		t.Errorf("check wrote: %q", out)
	}
	if data, err := os.ReadFile(trace); err != nil || string(data) != "# edited\n" {
		t.Errorf("check changed a file: %q, %v", data, err)
	}
}

// docs --check (make lint) fails on a relative link of the README or the
// docs that leads nowhere, naming the page, its line and the link.
func TestDocsCheckFailsOnABrokenLink(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "docs")
	if code, _, errs := run(t, "docs", "--out", dir); code != 0 {
		t.Fatalf("write: code %d: %s", code, errs)
	}
	readme := filepath.Join(root, "README.md")
	page := filepath.Join(dir, "safety.md")
	if err := os.WriteFile(page, []byte("# Running against a cluster you care about\n\n[back](../README.md)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, []byte("# x\n\n[safety](docs/safety.md#running-against-a-cluster-you-care-about)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "docs", "--out", dir, "--readme", readme, "--check"); code != 0 {
		t.Fatalf("check with good links: code %d: %s", code, errs)
	}
	if err := os.WriteFile(readme, []byte("# x\n\n[safety](docs/safety.md#running-against-any-cluster)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "docs", "--out", dir, "--readme", readme, "--check")
	if code != 1 || !strings.Contains(errs, "1 broken links") || !strings.Contains(errs, readme+":3: docs/safety.md#running-against-any-cluster") {
		t.Fatalf("check with a broken anchor: code %d, stderr %q", code, errs)
	}
}
