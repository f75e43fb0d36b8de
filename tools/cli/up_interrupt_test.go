package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUpWithNodeStopsCleanOnCtrlC is Ctrl-C for real: `draconform up --node`
// in a process of its own, interrupted once its node runs, must leave
// nothing of the node on the machine: no process, mount, cgroup, bridge or
// directory.
func TestUpWithNodeStopsCleanOnCtrlC(t *testing.T) { upStopsCleanOn(t, os.Interrupt) }

// A closed terminal sends SIGHUP, whose default ends the process at once:
// draconform must clean up as on Ctrl-C.
func TestUpWithNodeStopsCleanOnHangup(t *testing.T) { upStopsCleanOn(t, syscall.SIGHUP) }

func upStopsCleanOn(t *testing.T, sig os.Signal) {
	if testing.Short() {
		t.Skip("starts a control plane and a kubelet node")
	}
	if os.Geteuid() != 0 {
		t.Skip("a node needs root")
	}
	bin := buildCLI(t)
	// The binaries first, in a run of their own: a cold build of the node's
	// runtime is not what this test times.
	if out, err := exec.Command(bin, "binaries", "--provider", "local").CombinedOutput(); err != nil {
		t.Fatalf("draconform binaries: %v\n%s", err, out)
	}
	run := startCLI(t, bin, "up", "--provider", "local", "--cell", "defaults", "--node", "--out", t.TempDir())
	stateDir := regexp.MustCompile(`state in (/var/lib/draconform/([0-9a-f]+)),`)
	var dir, id string
	up := func(line string) bool {
		if m := stateDir.FindStringSubmatch(line); m != nil {
			dir, id = m[1], m[2]
		}
		return strings.Contains(line, "Ctrl-C stops it")
	}
	if !run.waitFor(up, 4*time.Minute) {
		t.Fatalf("draconform up --node did not come up in 4 minutes:\n%s", run.output())
	}
	if dir == "" {
		t.Fatalf("draconform up did not say where the node keeps its state:\n%s", run.output())
	}
	// The same look must see a running node, or finding nothing after
	// Ctrl-C would prove nothing.
	if running := nodeLeftovers(dir, id); len(running) < 5 {
		t.Fatalf("a running node shows only %v: the leftover check cannot see a node", running)
	}
	ended, err := run.signal(sig, 2*time.Minute)
	if !ended {
		t.Fatalf("draconform up did not stop within 2 minutes of %v", sig)
	}
	if err != nil {
		t.Errorf("draconform up exited with %v after %v", err, sig)
	}

	left := nodeLeftovers(dir, id)
	if len(left) > 0 {
		t.Errorf("after %v the node left: %s\noutput:\n%s", sig, strings.Join(left, "; "), run.output())
	}
}

// nodeLeftovers lists what of the node with state dir and id is on the
// machine: its directory, mounts, bridge, cgroups and processes.
func nodeLeftovers(dir, id string) []string {
	var left []string
	if _, err := os.Stat(dir); err == nil {
		left = append(left, "directory "+dir)
	}
	if mounts, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mounts), dir) {
		left = append(left, "mounts under "+dir)
	}
	if _, err := os.Stat("/sys/class/net/dcbr" + id); err == nil {
		left = append(left, "bridge dcbr"+id)
	}
	cgroups, _ := filepath.Glob("/sys/fs/cgroup/*/draconform-" + id)
	left = append(left, cgroups...)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), dir) {
			left = append(left, "process "+filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return left
}
