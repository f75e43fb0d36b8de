package localcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

// countingBinary writes a script that notes each run in log, prints a
// version for --version and help text listing gate for anything else.
func countingBinary(t *testing.T, dir, name, log, gate string) {
	t.Helper()
	script := "#!/bin/sh\necho \"$0 $1\" >> " + log + "\n" +
		"if [ \"$1\" = --version ]; then echo " + name + " v9.9.9; exit 0; fi\n" +
		"echo '                kube:" + gate + "=true|false (BETA - default=true)'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func runsOf(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.TrimSpace(string(data)))
}

// The run's first process asks every binary once and records the answers;
// another process of the run (a cell in a process of its own) takes them
// without running any binary, but asks again a binary that changed since.
func TestCellsTakeTheRecordedBinaryFacts(t *testing.T) {
	bins, out := t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "runs")
	for _, name := range []string{string(Etcd), string(cluster.APIServer), string(cluster.Scheduler), string(cluster.ControllerManager)} {
		countingBinary(t, bins, name, log, "DRAConsumableCapacity")
	}
	ctx := context.Background()
	if err := New(Options{BinDir: bins, OutDir: out, Version: "vtest"}).RecordBinaryFacts(ctx); err != nil {
		t.Fatal(err)
	}
	// etcd: --version; three components: --version and --help.
	if got := len(runsOf(t, log)) / 2; got != 7 {
		t.Fatalf("recording ran the binaries %d times, want 7: %v", got, runsOf(t, log))
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}

	cell := New(Options{BinDir: bins, OutDir: out, Version: "vtest"})
	sched := filepath.Join(bins, string(cluster.Scheduler))
	known, err := cell.knownGates(ctx, sched)
	if err != nil || !known["DRAConsumableCapacity"] {
		t.Fatalf("recorded gates of the scheduler: %v, %v", known, err)
	}
	if v := cell.binaryVersion(ctx, filepath.Join(bins, string(Etcd))); v != "etcd v9.9.9" {
		t.Errorf("recorded etcd version %q", v)
	}
	if runs := runsOf(t, log); len(runs) != 0 {
		t.Errorf("a cell ran binaries the run had asked already: %v", runs)
	}

	// A binary replaced since (another size, a later time) is asked again.
	countingBinary(t, bins, string(cluster.Scheduler), log, "DRAExtendedResourceCapacity")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(sched, later, later); err != nil {
		t.Fatal(err)
	}
	cell = New(Options{BinDir: bins, OutDir: out, Version: "vtest"})
	known, err = cell.knownGates(ctx, sched)
	if err != nil || !known["DRAExtendedResourceCapacity"] || known["DRAConsumableCapacity"] {
		t.Errorf("a changed scheduler's gates came from the record: %v, %v", known, err)
	}
	if runs := runsOf(t, log); len(runs) != 2 {
		t.Errorf("the changed scheduler ran %v, want one --help", runs)
	}
}
