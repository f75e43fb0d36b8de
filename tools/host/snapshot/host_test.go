package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// kubeletSuites are the suites whose cases start a real kubelet node: the
// kubelet cells of `make conformance`.
const kubeletSuites = "baseline-kubelet,kep6406-kubelet,driver-profile"

// byDesign are the differences a run makes on purpose and leaves, each with
// why; the test logs them, and fails on any other.
var byDesign = map[string]string{
	"file /var/lib/draconform appeared": "the nodes' state root: each node's folder, and the lock that orders the record of the host's kernel settings, live in it; it stays, empty, since removing it would race a node starting beside (it appears only on a machine that never ran a node)",
}

// nodeFolder is a node's state folder under /var/lib/draconform, named by
// its id (tools/cluster/localcp's nodeID).
var nodeFolder = regexp.MustCompile(`^[0-9a-f]{16}$`)

// TestKubeletCellsLeaveTheHostAsFound runs the kubelet cells of `make
// conformance` as it runs them, with the draconform binary `make
// host-check` builds, between two snapshots of this machine. They must be
// equal; if they are not, `draconform cleanup --nodes` runs and a third
// snapshot must equal the first: every difference is then draconform's
// own, removed by the clean-up, and is logged. It runs alone (`make
// host-check`, which .ci/run calls after `make test`): under `go test ./...`
// other packages start nodes and control planes side by side, and they
// would show in the snapshots.
func TestKubeletCellsLeaveTheHostAsFound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kubelet nodes; skipped with -short")
	}
	bin := os.Getenv("DRACONFORM_HOST_CHECK")
	if bin == "" {
		t.Skip("make host-check runs this alone, with DRACONFORM_HOST_CHECK naming the draconform binary: under go test ./... other packages' nodes would show in the snapshots")
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(repo, "_output", "host-check", "run")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	// What a killed earlier run left is not this run's doing.
	draconform(ctx, t, repo, bin, "cleanup", "--nodes")
	if others := nodesRunning(); len(others) > 0 {
		t.Fatalf("other draconform nodes run on this machine (%s): what they change would show in the snapshots; run make host-check when none does", strings.Join(others, ", "))
	}
	s := HostSources()
	take := func() *Snapshot { return takeHost(ctx, t, s) }
	notes, failures := compareAround(take, func() {
		began := time.Now()
		if code := draconform(ctx, t, repo, bin, "run", "--provider", "local,prototype", "--suite", kubeletSuites,
			"--golden", filepath.Join(repo, "docs", "golden-outcomes.json"), "--out", out); code != 0 {
			t.Errorf("draconform run exited %d (its output is in %s)", code, out)
		}
		t.Logf("the kubelet cells ran in %s", time.Since(began).Round(time.Second))
	}, func() { draconform(ctx, t, repo, bin, "cleanup", "--nodes") })
	for _, n := range notes {
		t.Log(n)
	}
	for _, f := range failures {
		t.Error(f)
	}
}

// compareAround takes a snapshot, does work, and takes another. If they
// differ (by design aside) it runs cleanup and takes a third, which must
// equal the first. It returns what to log and what fails.
func compareAround(take func() *Snapshot, work, cleanup func()) (notes, failures []string) {
	before := take()
	notes = NotCompared(before, before)
	work()
	left, why := unexplained(Diff(before, take()))
	notes = append(notes, why...)
	if len(left) == 0 {
		return append(notes, "the host is as it was before the run: "+summary(before)), nil
	}
	for _, d := range left {
		notes = append(notes, "left by the run: "+d.String())
	}
	cleanup()
	after, why := unexplained(Diff(before, take()))
	notes = append(notes, why...)
	for _, d := range after {
		failures = append(failures, "the host differs after the run and cleanup --nodes: "+d.String())
	}
	if len(failures) == 0 {
		notes = append(notes, fmt.Sprintf("each of the %d differences the run left was draconform's own, and cleanup --nodes removed it", len(left)))
	}
	return notes, failures
}

// unexplained returns the differences not made by design, and a note for
// each that is, with why.
func unexplained(diffs []Difference) (out []Difference, notes []string) {
	for _, d := range diffs {
		if why, ok := byDesign[d.String()]; ok {
			notes = append(notes, fmt.Sprintf("by design: %s: %s", d, why))
			continue
		}
		out = append(out, d)
	}
	return out, notes
}

func takeHost(ctx context.Context, t *testing.T, s Sources) *Snapshot {
	t.Helper()
	snap, err := Take(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// draconform runs the binary in the checkout as a user would, logs what it
// printed, and returns its exit code.
func draconform(ctx context.Context, t *testing.T, dir, bin string, args ...string) int {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("draconform %s:\n%s", strings.Join(args, " "), tail(out.String(), 40))
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("draconform %s: %v", strings.Join(args, " "), err)
	}
	return 0
}

// nodesRunning lists the node folders under /var/lib/draconform.
func nodesRunning() []string {
	entries, _ := os.ReadDir("/var/lib/draconform")
	var out []string
	for _, e := range entries {
		if e.IsDir() && nodeFolder.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// summary counts what a snapshot compared, section by section.
func summary(s *Snapshot) string {
	var parts []string
	for sec, items := range s.Items {
		parts = append(parts, fmt.Sprintf("%d %ss", len(items), sec))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// tail is the last n lines of out.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
