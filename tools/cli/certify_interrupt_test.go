package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterruptedCertifyWritesNoBundle is Ctrl-C for real in the middle of
// `draconform certify`: the run it cut short proves nothing of the claim,
// so certify must exit non-zero and leave no bundle a reviewer would
// accept (none at all).
func TestInterruptedCertifyWritesNoBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	bin := buildCLI(t)
	if out, err := exec.Command(bin, "binaries", "--provider", "prototype").CombinedOutput(); err != nil {
		t.Fatalf("draconform binaries: %v\n%s", err, out)
	}
	dir := t.TempDir()
	product := filepath.Join(dir, "product.yaml")
	if err := os.WriteFile(product, []byte("apiVersion: draconform.dev/v1alpha1\nkind: Product\nvendor: V\nname: N\nversion: \"1\"\ndriver: draconform.dev\nimage: img:1\ncontact: a@b.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	run := startCLI(t, bin, "certify", "--provider", "prototype", "--claim", "feature-absent-safe", "--product", product, "--out", out)
	// Once the first cell has reported, some cases have outcomes and the
	// others have none: the run is half done.
	if !run.waitFor(func(line string) bool { return strings.HasPrefix(line, "[ 1/") }, 5*time.Minute) {
		t.Fatalf("no cell finished in 5 minutes:\n%s", run.output())
	}
	ended, err := run.interrupt(3 * time.Minute)
	if !ended {
		t.Fatalf("certify did not stop within 3 minutes of Ctrl-C:\n%s", run.output())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Errorf("an interrupted certify exited with %v, want a non-zero exit:\n%s", err, run.output())
	}
	if _, err := os.Stat(filepath.Join(out, "bundle")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted certify left a bundle (%v):\n%s", err, run.output())
	}
	if !strings.Contains(run.output(), "no bundle is written") {
		t.Errorf("certify did not say why it wrote no bundle:\n%s", run.output())
	}
}
