package shards

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/report"
)

// The CI merge job (.github/workflows/gate-matrix.yaml) runs `make
// merge-matrix DIRS=...` over the jobs' artifacts. This runs that target
// on shares of a small plan made by real `run --shard` processes: it
// passes with every share, and fails with one missing, or with a case
// that failed.
func TestMergeMatrixJob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two shares of a plan on embedded control planes")
	}
	root := repoRoot(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "draconform")
	build := exec.Command("go", "build", "-o", bin, "./tools/cmd/draconform")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building draconform: %v\n%s", err, out)
	}
	// Each share in a folder of its own, as each job's artifact is.
	for _, i := range []string{"1", "2"} {
		cmd := exec.Command(bin, "run", "--provider", "prototype", "--suite", "kep6406-api", "--cells", "capacity-on,defaults",
			"--shard", i+"/2", "--out", filepath.Join(tmp, "artifacts", "job-"+i, "shard"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run --shard %s/2: %v\n%s", i, err, out)
		}
		// The first line says the cases it counts are the plan's, not the share's.
		if !strings.Contains(string(out), ", shard "+i+"/2 of ") {
			t.Errorf("run --shard %s/2 does not say its first line counts the whole plan:\n%s", i, out)
		}
	}
	mergeMatrix := func(dirs ...string) (string, error) {
		cmd := exec.Command("make", "-s", "merge-matrix", "DRACONFORM="+bin, "DIRS="+strings.Join(dirs, " "), "MERGED="+filepath.Join(t.TempDir(), "merged"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	job := func(i string) string { return filepath.Join(tmp, "artifacts", "job-"+i) }
	if out, err := mergeMatrix(filepath.Join(tmp, "artifacts")); err != nil || !strings.Contains(out, "draconform merge: shards 1/2, 2/2 of plan") {
		t.Fatalf("every share: %v\n%s", err, out)
	}
	if out, err := mergeMatrix(job("2")); err == nil || !strings.Contains(out, "missing shard 1/2 of the plan (given: 2/2)") {
		t.Errorf("a share missing: %v\n%s", err, out)
	}
	if out, err := mergeMatrix(filepath.Join(tmp, "none")); err == nil {
		t.Errorf("no share at all passed:\n%s", out)
	}
	// A case that failed in a share: its report says so.
	shard := filepath.Join(job("1"), "shard")
	id := failACase(t, shard)
	if out, err := mergeMatrix(filepath.Join(tmp, "artifacts")); err == nil || !strings.Contains(out, id) {
		t.Errorf("a failed case (%s) passed the merge job: %v\n%s", id, err, out)
	}
}

// failACase turns the first passed case of the share in dir failed, as
// if it had failed, and returns its id.
func failACase(t *testing.T, dir string) string {
	t.Helper()
	rec, err := ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rec.Processes {
		for i, s := range p.Out.Report.SpecReports {
			outs := report.Outcomes(types.Report{SpecReports: []types.SpecReport{s}})
			if len(outs) != 1 || outs[0].State != report.Passed {
				continue
			}
			p.Out.Report.SpecReports[i].State = types.SpecStateFailed
			p.Out.Report.SpecReports[i].Failure.Message = "failed by the test"
			if err := writeRecord(dir, rec); err != nil {
				t.Fatal(err)
			}
			return outs[0].ID
		}
	}
	t.Fatalf("%s holds no passed case to fail", dir)
	return ""
}

// repoRoot is found from the test's folder, not from runtime.Caller, whose
// file names are module paths under make's -trimpath.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := k8sbuild.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
