package cli

import (
	"github.com/draconform/draconform/tools/runner"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

func productFile(t *testing.T) string {
	t.Helper()
	product := filepath.Join(t.TempDir(), "product.yaml")
	if err := os.WriteFile(product, []byte("apiVersion: draconform.dev/v1alpha1\nkind: Product\nvendor: V\nname: N\nversion: \"1\"\ndriver: draconform.dev\nimage: img:1\ncontact: a@b.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return product
}

// A certify whose --out another run holds leaves that run's log alone.
func TestCertifyLocksBeforeItWrites(t *testing.T) {
	out := t.TempDir()
	log := filepath.Join(out, "e2e.log")
	if err := os.WriteFile(log, []byte("the first run's log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := runner.LockOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, _, errs := run(t, "certify", "--product", productFile(t), "--claim", "feature-absent-safe",
		"--kubeconfig", filepath.Join(t.TempDir(), "none"), "--out", out)
	if code != 2 || !strings.Contains(errs, "another draconform run") {
		t.Errorf("code %d, stderr:\n%s", code, errs)
	}
	if data, _ := os.ReadFile(log); string(data) != "the first run's log\n" {
		t.Errorf("the run holding the folder had its log rewritten to %q", data)
	}
}

// A reused --out holds an earlier run's verdicts: a run that then writes
// none (here: its cluster cannot be reached) must not certify with them.
func TestCertifyRefusesAnEarlierRunsOutput(t *testing.T) {
	out := t.TempDir()
	verdicts := `[{"claim":"feature-absent-safe","target":"kubeconfig","state":"conformant","reason":"an earlier run"}]`
	for name, data := range map[string]string{"verdicts.json": verdicts, "outcomes.json": "[]", "cluster-facts.json": "[]", "junit.xml": "<testsuites/>"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, errs := run(t, "certify", "--product", productFile(t), "--claim", "feature-absent-safe",
		"--kubeconfig", filepath.Join(t.TempDir(), "none"), "--out", out)
	if code != 2 || !strings.Contains(errs, "holds an earlier run's output") {
		t.Errorf("code %d, stdout:\n%s\nstderr:\n%s", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "bundle")); err == nil {
		t.Error("a bundle was written from an earlier run's verdicts")
	}
	if _, err := os.Stat(filepath.Join(out, "e2e.log")); err == nil {
		t.Error("certify wrote into a folder it refused")
	}
}
