package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/report"
)

// TestInvariantReportsLostField runs a one-case suite, which checks only
// that a pod is bound, against the prototype with a protobuf scheduler,
// which loses the field: the runner's invariant must fail the case. Before
// the invariant compared generations, a class written in the same second as
// the claim was exempt, and this run passed.
func TestInvariantReportsLostField(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a prototype control plane; skipped with -short")
	}
	dir := t.TempDir()
	for _, name := range []string{"cells.yaml"} {
		data, err := suites.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "invariant-only", "invariant-only.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "invariant-only.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// A process of its own: ginkgo runs one suite per process.
	bin := buildCLI(t)
	cmd := exec.CommandContext(ctx, bin, "run", "--suites", dir, "--provider", "prototype-protobuf-scheduler", "--out", out)
	cmd.Dir = "../.." // the binaries' cache is <repo>/.cache
	log, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the run passed although the scheduler lost the field:\n%s", log)
	}
	raw, err := os.ReadFile(filepath.Join(out, "outcomes.json"))
	if err != nil {
		t.Fatalf("no outcomes: %v\n%s", err, log)
	}
	var outcomes []report.Outcome
	if err := json.Unmarshal(raw, &outcomes); err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].State != "failed" {
		t.Fatalf("want the one case failed, got %+v", outcomes)
	}
	msg := outcomes[0].Message
	for _, fact := range []string{"invariant at", "has no capacity", "the scheduler lost the field"} {
		if !strings.Contains(msg, fact) {
			t.Errorf("the failure does not say %q:\n%s", fact, msg)
		}
	}
}
