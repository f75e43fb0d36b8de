package localcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/internal/logtail"
)

const testVersion = "v1.37.2"

// TestControlPlane runs the real binaries: start, schedule, restart the
// scheduler with other gates, schedule again, stop, and check that nothing
// is left running.
func TestControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane (and may build it first)")
	}
	binDir := ensureTestBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	p := New(Options{BinDir: binDir, OutDir: t.TempDir(), Version: testVersion, Log: testLog{t}})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	lc := startTestCell(ctx, t, p)

	cs, err := kubernetes.NewForConfig(lc.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	createReadyNode(ctx, t, cs, "node-1")
	waitDefaultServiceAccount(ctx, t, cs)

	pod1 := bindPod(ctx, t, cs, "before-restart")
	checkOneClusterPerCellFolder(ctx, t, lc)
	checkASecondSchedulerWaits(ctx, t, lc, cs)
	checkSchedulerRestart(ctx, t, lc)
	pod2 := bindPod(ctx, t, cs, "after-restart")
	checkFailedRestart(ctx, t, lc, cs)
	checkAPIServerAndControllerManagerRestart(ctx, t, lc, cs, pod2.Name)

	bindPod(ctx, t, cs, "after-all-restarts")
	checkGarbageCollector(ctx, t, cs, pod1)
	checkResourceClaimController(ctx, t, cs)
	checkStopLeavesNothing(ctx, t, p, lc)
}

// startTestCell starts cell "it" with DRAConsumableCapacity off in the
// scheduler; a second Start of the running cell must fail.
func startTestCell(ctx context.Context, t *testing.T, p *Provider) *Cluster {
	t.Helper()
	began := time.Now()
	c, err := p.Start(ctx, "it", cluster.GateState{cluster.Scheduler: {"DRAConsumableCapacity": false}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane up in %s", time.Since(began).Round(time.Millisecond))
	if c.Name() != "local-v1.37.2/it" {
		t.Errorf("Name() = %q", c.Name())
	}
	if g := c.Gates()[cluster.Scheduler]; len(g) != 1 || g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v before restart", g)
	}
	if _, err := p.Start(ctx, "it", nil); err == nil {
		t.Error("a second Start of a running cell succeeded")
	}
	return c.(*Cluster)
}

// checkSchedulerRestart restarts the scheduler with DRAConsumableCapacity
// on: the gates and the scheduler's log must say so.
func checkSchedulerRestart(ctx context.Context, t *testing.T, lc *Cluster) {
	t.Helper()
	began := time.Now()
	if err := lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("scheduler restarted in %s", time.Since(began).Round(time.Millisecond))
	if g := lc.Gates()[cluster.Scheduler]; len(g) != 1 || !g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v after restart, want DRAConsumableCapacity=true", g)
	}
	schedLog, err := os.ReadFile(lc.logFile(cluster.Scheduler))
	if err != nil {
		t.Fatal(err)
	}
	for _, header := range []string{"with feature gates: DRAConsumableCapacity=false", "with feature gates: DRAConsumableCapacity=true"} {
		if !strings.Contains(string(schedLog), header) {
			t.Errorf("scheduler log lacks header %q", header)
		}
	}
	if strings.Index(string(schedLog), "DRAConsumableCapacity=true") < strings.Index(string(schedLog), "DRAConsumableCapacity=false") {
		t.Error("scheduler log headers are out of order")
	}
	// The header is ours; the binary's own flag dump proves it got the gate.
	latest := string(schedLog[strings.LastIndex(string(schedLog), logtail.Mark):])
	if !containsLine(latest, "FLAG: --feature-gates=", "DRAConsumableCapacity=true") {
		t.Error("restarted scheduler's log has no flag dump with DRAConsumableCapacity=true")
	}
}

// checkFailedRestart restarts the scheduler with a gate the binary does not
// know, which makes it exit: the error must say why, and the scheduler must
// run again with its previous gates, so the cell's later cases still get
// their pods scheduled.
func checkFailedRestart(ctx context.Context, t *testing.T, lc *Cluster, cs kubernetes.Interface) {
	t.Helper()
	err := lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"NoSuchGate": true})
	if err == nil || !strings.Contains(err.Error(), "unrecognized feature gate: NoSuchGate") ||
		!strings.Contains(err.Error(), lc.logFile(cluster.Scheduler)) {
		t.Errorf("Restart with an unknown gate: error %v, want one naming the gate and the log", err)
	}
	if g := lc.Gates()[cluster.Scheduler]; len(g) != 1 || !g["DRAConsumableCapacity"] {
		t.Errorf("Gates()[scheduler] = %v after a failed restart, want the last good gates", g)
	}
	bindPod(ctx, t, cs, "after-failed-restart")
	if err := lc.Restart(ctx, cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatalf("restart after a failed restart: %v", err)
	}
}

// checkAPIServerAndControllerManagerRestart restarts the other two
// components. The API server comes back on the same port and storage, so
// existing clients and objects (pod, bound before) carry on.
func checkAPIServerAndControllerManagerRestart(ctx context.Context, t *testing.T, lc *Cluster, cs kubernetes.Interface, pod string) {
	t.Helper()
	began := time.Now()
	if err := lc.Restart(ctx, cluster.APIServer, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %s", time.Since(began).Round(time.Millisecond))
	if got, err := cs.CoreV1().Pods("default").Get(ctx, pod, metav1.GetOptions{}); err != nil || got.Spec.NodeName == "" {
		t.Errorf("pod %s after API server restart: %v (node %q)", pod, err, got.Spec.NodeName)
	}
	began = time.Now()
	if err := lc.Restart(ctx, cluster.ControllerManager, cluster.Gates{"DRAConsumableCapacity": true}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-controller-manager restarted in %s", time.Since(began).Round(time.Millisecond))
	if g := lc.Gates(); len(g) != 3 || !g[cluster.APIServer]["DRAConsumableCapacity"] || !g[cluster.ControllerManager]["DRAConsumableCapacity"] {
		t.Errorf("Gates() = %v after restarting all three components", g)
	}
}

// checkStopLeavesNothing stops the cell twice: no process it started may
// be left, and every component must have left its log.
func checkStopLeavesNothing(ctx context.Context, t *testing.T, p *Provider, lc *Cluster) {
	t.Helper()
	pids := lc.pids()
	logs := map[cluster.Component]string{}
	for _, comp := range append([]cluster.Component{Etcd}, cluster.Components...) {
		logs[comp] = lc.logFile(comp)
	}
	if tail, err := lc.TailLog(ctx, cluster.Scheduler, 5); err != nil || !strings.Contains(tail, "current run") {
		t.Errorf("TailLog(scheduler) = %q, %v", tail, err)
	}
	if _, err := lc.TailLog(ctx, cluster.Kubelet, 5); !errors.Is(err, cluster.ErrNoLog) {
		t.Errorf("TailLog(kubelet) of a cell with no node = %v, want ErrNoLog", err)
	}
	if err := p.Stop(ctx, lc); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(ctx, lc); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	// etcd, three components, four scheduler starts after the first (one
	// failing, then its previous gates again), one each of API server and
	// controller manager. The API server's restart restarts nothing else:
	// behind the cell's proxy, the scheduler and controller manager keep
	// their address and reconnect.
	if len(pids) != 10 {
		t.Errorf("recorded %d pids, want 10: %v", len(pids), pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d still exists after Stop: %v", pid, err)
		}
	}
	if kids := childrenOf(t, os.Getpid()); len(kids) > 0 {
		t.Errorf("test process still has children after Stop: %v", kids)
	}
	for comp, path := range logs {
		if fi, err := os.Stat(path); path == "" || err != nil || fi.Size() == 0 {
			t.Errorf("%s log %s missing or empty: %v", comp, path, err)
		}
	}
}

// TestStartFailureLeavesNothing starts a cell whose API server refuses its
// command line: Start must fail with the API server's own complaint, and
// stop the etcd it had already started.
func TestStartFailureLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane (and may build it first)")
	}
	binDir := ensureTestBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := t.TempDir()
	bad := New(Options{BinDir: binDir, OutDir: out, Version: testVersion, Log: testLog{t}, APIServerExtraFlags: []string{"--no-such-flag"}})
	t.Cleanup(func() { _ = bad.Close(context.Background()) })

	_, err := bad.Start(ctx, "bad", nil)
	if err == nil {
		t.Fatal("Start succeeded with an unknown API server flag")
	}
	t.Logf("Start failed as expected: %v", err)
	apiLog := filepath.Join(out, "bad", "kube-apiserver.log")
	for _, want := range []string{"unknown flag: --no-such-flag", apiLog, "cell bad"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start error lacks %q:\n%v", want, err)
		}
	}
	if kids := childrenOf(t, os.Getpid()); len(kids) > 0 {
		t.Errorf("processes left after a failed Start: %v", kids)
	}
	// The cell is free again, so a corrected cell can start in the same place.
	p := New(Options{BinDir: binDir, OutDir: out, Version: testVersion, Log: testLog{t}})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	c, err := p.Start(ctx, "bad", nil)
	if err != nil {
		t.Fatalf("restarting the cell after a failed Start: %v", err)
	}
	if err := p.Stop(ctx, c); err != nil {
		t.Fatal(err)
	}
}
