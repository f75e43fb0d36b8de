package localcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"k8s.io/client-go/kubernetes"
)

// checkOneClusterPerCellFolder starts the running cell again from a second
// provider on the same output folder: the cell folder is taken, and the
// refusal names the process that has it.
func checkOneClusterPerCellFolder(ctx context.Context, t *testing.T, lc *Cluster) {
	t.Helper()
	other := New(Options{BinDir: lc.opts.BinDir, OutDir: lc.opts.OutDir, Version: testVersion, Log: testLog{t}})
	c, err := other.Start(ctx, lc.cell, nil)
	if err == nil {
		_ = other.Stop(ctx, c)
		t.Fatal("a second cluster started in the folder of a running cell")
	}
	if msg := err.Error(); !strings.Contains(msg, "in use by process "+fmt.Sprint(os.Getpid())) || !strings.Contains(msg, lc.dir) {
		t.Errorf("the refusal does not name the cell folder and its holder: %v", err)
	}
}

// checkASecondSchedulerWaits starts a second kube-scheduler from the cell's
// own config: it syncs, but waits for the lease our scheduler holds, and
// binds none of the pods created meanwhile.
func checkASecondSchedulerWaits(ctx context.Context, t *testing.T, lc *Cluster, cs kubernetes.Interface) {
	t.Helper()
	ports, err := localproc.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "second-scheduler.log")
	cfg := filepath.Join(lc.private, "kube-scheduler-config.yaml")
	second, err := localproc.Start(nil, "second-scheduler", lc.opts.binary(cluster.Scheduler, nil), schedulerArgs(cfg, ports[0], lc.gates[cluster.Scheduler]), logPath, "")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Stop(5 * time.Second)
	// Ready means synced; it does not mean leading.
	if err := localproc.WaitHealthy(ctx, second, localproc.InsecureProbe(fmt.Sprintf("https://127.0.0.1:%d/readyz", ports[0])), time.Minute); err != nil {
		t.Fatal(err)
	}
	bindPod(ctx, t, cs, "with-a-second-scheduler")
	metrics := localproc.InsecureProbe(fmt.Sprintf("https://127.0.0.1:%d/metrics", ports[0]))
	metrics.WantBody = []string{`leader_election_master_status{name="kube-scheduler"} 0`}
	if err := metrics.Check(ctx); err != nil {
		t.Errorf("the second scheduler does not say it waits for the lease: %v", err)
	}
	text, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "Successfully bound pod") || strings.Contains(string(text), "is already assigned") {
		t.Errorf("the second scheduler acted on the cell's pods:\n%s", localproc.LogTail(logPath, 20))
	}
}
