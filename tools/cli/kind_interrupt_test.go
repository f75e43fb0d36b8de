package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKindRunStopsCleanOnCtrlC is Ctrl-C for real on the kind provider:
// `draconform run --provider kind`, interrupted while its cases run on a
// cluster it created, must delete that cluster: no node container of it,
// and no kind or docker process of it, may stay behind. The engine is
// not the run's (make docker-engine started it), so it stays.
func TestKindRunStopsCleanOnCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a kind cluster")
	}
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("needs a Docker engine that runs kind nodes (make docker-engine): %v: %s", err, strings.TrimSpace(string(out)))
	}
	image := newestNodeImage(t)
	bin := buildCLI(t)
	// A name of its own, so the test never adopts, or deletes, a cluster
	// someone else runs.
	name := fmt.Sprintf("dc-ctrlc-%d", os.Getpid())
	t.Cleanup(func() {
		// Whatever the verdict, the machine is left as found.
		for _, c := range kindClusters(t, name) {
			_ = exec.Command("docker", "rm", "-f", c).Run()
		}
	})
	run := startCLI(t, bin, "run", "--provider", "kind", "--kind-image", image, "--kind-cluster", name,
		"--cells", "defaults", "--suite", "baseline-kubelet", "--out", t.TempDir())
	ready := func(line string) bool { return strings.Contains(line, "test driver ready on "+name) }
	if !run.waitFor(ready, 8*time.Minute) {
		t.Fatalf("the kind cluster and its driver were not ready in 8 minutes:\n%s", run.output())
	}
	// The same look must see the running cluster, or finding nothing after
	// Ctrl-C would prove nothing.
	if running := kindClusters(t, name); len(running) == 0 {
		t.Fatalf("no node container of cluster %s is seen while it runs: the leftover check cannot see a cluster\n%s", name, run.output())
	}
	ended, err := run.interrupt(3 * time.Minute)
	if !ended {
		t.Fatalf("draconform run did not stop within 3 minutes of Ctrl-C (%v):\n%s", err, run.output())
	}
	// An interrupted run is not a passed one; it only has to end.
	t.Logf("draconform run ended with %v after Ctrl-C", err)
	if left := kindClusters(t, name); len(left) > 0 {
		t.Errorf("after Ctrl-C the run left node containers %v\noutput:\n%s", left, run.output())
	}
	if procs := processesNaming(name); len(procs) > 0 {
		t.Errorf("after Ctrl-C the run left processes: %s", strings.Join(procs, "; "))
	}
}

// newestNodeImage is the latest node image make node-image built; the test
// does not build one (half an hour cold).
func newestNodeImage(t *testing.T) string {
	out, err := exec.Command("docker", "image", "ls", "draconform.dev/kind-node", "--format", "{{.Repository}}:{{.Tag}}").Output()
	if err != nil {
		t.Fatalf("docker image ls: %v", err)
	}
	images := strings.Fields(string(out))
	if len(images) == 0 {
		t.Skip("needs a node image: make node-image builds it")
	}
	return images[0] // docker lists the newest first
}

// kindClusters lists the node containers of the clusters named prefix or
// prefix-<cell>.
func kindClusters(t *testing.T, prefix string) []string {
	out, err := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster",
		"--format", `{{.Names}} {{.Label "io.x-k8s.kind.cluster"}}`).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		container, cluster, _ := strings.Cut(line, " ")
		if cluster == prefix || strings.HasPrefix(cluster, prefix+"-") {
			names = append(names, container)
		}
	}
	return names
}

func processesNaming(s string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := fmt.Sprint(os.Getpid())
	for _, p := range procs {
		pid := filepath.Base(filepath.Dir(p))
		if data, err := os.ReadFile(p); err == nil && pid != self && strings.Contains(string(data), s) {
			out = append(out, pid+": "+strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return out
}
