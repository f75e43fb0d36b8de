package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

// pastRun writes an output folder holding outcomes, as a run leaves it.
func pastRun(t *testing.T, outcomes ...report.Outcome) string {
	dir := t.TempDir()
	data, err := json.Marshal(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, report.OutcomesFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// draconform results DIR shows a past run again, exits as the run did, and
// with --golden judges it again; --rerun-failed refuses what it cannot
// rerun. Every refusal exits 2.
func TestResultsAndRerunFailed(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	failing := report.Outcome{ID: "kep6406-api/a@defaults", Target: "prototype", Suite: "kep6406-api", Cell: "defaults", State: report.Failed,
		Message: "step 2 at s.yaml:9, pod p1 is scheduled:\n  want: a\n  got:  b"}
	green := report.Outcome{ID: "kep6406-api/b@defaults", Target: "prototype", Suite: "kep6406-api", Cell: "defaults", State: report.Passed}
	failed, passed := pastRun(t, failing, green), pastRun(t, green)
	binFailed := pastRun(t, report.Outcome{ID: "s/a@c", Target: "local-bin", Suite: "s", Cell: "c", State: report.Failed})
	golden := filepath.Join(t.TempDir(), "golden.json")
	g := report.Golden{}
	g.Merge([]report.Outcome{{ID: green.ID, Target: "prototype", Suite: green.Suite, Cell: green.Cell, State: report.Failed}}, nil)
	if err := g.Save(golden); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		out  []string // in order, on stdout
		errs string
	}{
		{"a failed run", []string{"results", failed}, 1, []string{"prototype", "FAILED (1):", "want: a", "got:  b",
			"rerun: draconform run --provider prototype --cells defaults --focus 'kep6406-api/a@defaults'"}, ""},
		{"a green run", []string{"results", passed}, 0, []string{"1/1"}, ""},
		{"judged again off the golden table", []string{"results", passed, "--golden", golden}, 1, []string{"1 outcomes differ from the golden table"}, ""},
		{"no folder", []string{"results"}, 2, nil, "results takes one argument"},
		{"not a run's folder", []string{"results", t.TempDir()}, 2, nil, "holds no outcomes.json"},
		{"rerun with a focus too", []string{"run", "--rerun-failed", failed, "--focus", "x"}, 2, nil, "--rerun-failed and --focus both choose the cases"},
		{"rerun of a green run", []string{"run", "--rerun-failed", passed}, 2, nil, "no case failed in that run"},
		{"rerun of binaries from elsewhere", []string{"run", "--rerun-failed", binFailed}, 2, nil, `cases failed on "local-bin"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			rest := out
			for _, want := range tt.out {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("stdout lacks %q (in order):\n%s", want, out)
				}
				rest = rest[i+len(want):]
			}
			if !strings.Contains(errs, tt.errs) {
				t.Errorf("stderr lacks %q:\n%s", tt.errs, errs)
			}
		})
	}
}
