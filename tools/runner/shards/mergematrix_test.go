package shards

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	if out, err := exec.Command("go", "build", "-o", bin, "./tools/cmd/draconform").CombinedOutput(); err != nil {
		t.Fatalf("building draconform: %v\n%s", err, out)
	}
	// Each share in a folder of its own, as each job's artifact is.
	for _, i := range []string{"1", "2"} {
		cmd := exec.Command(bin, "run", "--provider", "prototype", "--suite", "kep6406-api", "--cells", "capacity-on,defaults",
			"--shard", i+"/2", "--out", filepath.Join(tmp, "artifacts", "job-"+i, "shard"))
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run --shard %s/2: %v\n%s", i, err, out)
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
	rec := filepath.Join(job("1"), "shard", RecordFile)
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	flipped := strings.Replace(string(data), `"State":"passed"`, `"State":"failed"`, 1)
	if flipped == string(data) {
		t.Fatalf("%s holds no passed case to fail", rec)
	}
	if err := os.WriteFile(rec, []byte(flipped), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := mergeMatrix(filepath.Join(tmp, "artifacts")); err == nil || !strings.Contains(out, "golden") {
		t.Errorf("a failed case passed the merge job: %v\n%s", err, out)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}
