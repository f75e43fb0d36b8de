package snapshot

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestARunKilledByHangupLeavesTheHostAsFound starts the kubelet cells as
// TestKubeletCellsLeaveTheHostAsFound does, and hangs up on them once a
// node runs, as a closed terminal or a dropped ssh session would: SIGHUP
// to the run's process group. Without any clean-up afterwards, the host
// must be as it was before: a hangup means what Ctrl-C means, and a shard
// dies with its parent. It runs under make host-check, alone, for the
// same reason as the other host test.
func TestARunKilledByHangupLeavesTheHostAsFound(t *testing.T) {
	endARun(t, "hangup", "after its hangup", func(pid int) error { return syscall.Kill(-pid, syscall.SIGHUP) })
}

// endARun starts the kubelet cells into _output/host-check/<name> between
// two snapshots of the host, ends the run with end (given its pid) once a
// node runs a pod, and fails on each difference, saying what was left
// how; then cleanup --nodes, past the grace in which a node folder counts
// as starting, restores the machine.
func endARun(t *testing.T, name, how string, end func(pid int) error) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts kubelet nodes; skipped with -short")
	}
	bin := os.Getenv("DRACONFORM_HOST_CHECK")
	if bin == "" {
		t.Skip("make host-check runs this alone, with DRACONFORM_HOST_CHECK naming the draconform binary")
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(repo, "_output", "host-check", name)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	draconform(ctx, t, repo, bin, "cleanup", "--nodes")
	if others := nodesRunning(); len(others) > 0 {
		t.Fatalf("other draconform nodes run on this machine (%v); run make host-check when none does", others)
	}
	s := HostSources()
	before := takeHost(ctx, t, s)
	hangUpOnARun(ctx, t, repo, bin, out, end)
	left, why := unexplained(Diff(before, takeHost(ctx, t, s)))
	for _, n := range why {
		t.Log(n)
	}
	if len(left) == 0 {
		t.Log("the host is as it was before the run: " + summary(before))
		return
	}
	for _, d := range left {
		t.Errorf("left by the run %s: %s", how, d)
	}
	time.Sleep(time.Minute)
	draconform(ctx, t, repo, bin, "cleanup", "--nodes")
}

// hangUpOnARun starts the kubelet cells in a process group of their own,
// waits until a node runs a pod, sends SIGHUP
// to the group, and waits for the run to end.
func hangUpOnARun(ctx context.Context, t *testing.T, repo, bin, out string, hangUp func(pid int) error) {
	t.Helper()
	cmd := exec.Command(bin, "run", "--provider", "local,prototype", "--suite", kubeletSuites, "--out", out)
	cmd.Dir = repo
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start draconform run: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { t.Logf("draconform run, hung up on:\n%s", tail(log.String(), 40)) }()
	if !waitForPods(ctx, done) {
		t.Fatal("the run ended, or the time ran out, before a node ran a pod: nothing to hang up on")
	}
	began := time.Now()
	if err := hangUp(cmd.Process.Pid); err != nil {
		t.Fatalf("hanging up on the run: %v (the run ended before its hangup)", err)
	}
	select {
	case err := <-done:
		t.Logf("the run ended %s after its hangup (%v)", time.Since(began).Round(time.Second), err)
	case <-time.After(5 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("the run still ran 5 minutes after its hangup; killed")
	}
	if !waitGone(ctx, bin+" shard", 5*time.Minute) {
		t.Fatal("the run's shards still ran 5 minutes after it ended")
	}
}

// waitGone waits until no process's command line begins with prefix.
func waitGone(ctx context.Context, prefix string, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !anyProcess(prefix) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// anyProcess says whether a process's command line begins with prefix.
func anyProcess(prefix string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(strings.ReplaceAll(string(b), "\x00", " "), prefix) {
			return true
		}
	}
	return false
}

// waitForPods waits until a node under /var/lib/draconform has a pod's
// log folder, so that the hangup finds containers, mounts and the bridge
// in place; false when the run ends first or ctx is done.
func waitForPods(ctx context.Context, done <-chan error) bool {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return false
		case <-ctx.Done():
			return false
		case <-tick.C:
			for _, n := range nodesRunning() {
				if logs, _ := os.ReadDir(filepath.Join("/var/lib/draconform", n, "pod-logs")); len(logs) > 0 {
					return true
				}
			}
		}
	}
}

// TestARunWhoseParentIsKilledLeavesTheHostAsFound kills the run's own
// process outright (SIGKILL, as the OOM killer or a CI timeout would), once
// a node runs a pod. Its shards hold the clusters and nodes; each must
// hear of its parent's death once and clean up as on one Ctrl-C, so that
// the host is as before with no clean-up after.
func TestARunWhoseParentIsKilledLeavesTheHostAsFound(t *testing.T) {
	endARun(t, "killed", "after its own process was killed", func(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) })
}
