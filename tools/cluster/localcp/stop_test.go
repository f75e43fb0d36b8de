package localcp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localproc"
)

// The scheduler and controller manager are asked to stop; the API server
// and etcd, whose state the stop throws away, are killed without waiting
// out a graceful shutdown.
func TestStopAsksTheClientsAndKillsTheStateHolders(t *testing.T) {
	dir := t.TempDir()
	c := newCluster(Options{OutDir: dir}, k8sbuild.NewSyncWriter(&bytes.Buffer{}), "test", "defaults", nil)
	marker := func(comp cluster.Component) string { return filepath.Join(dir, string(comp)+".got-term") }
	for _, comp := range []cluster.Component{cluster.Scheduler, cluster.ControllerManager, cluster.APIServer, Etcd} {
		// Every fake notes a SIGTERM; the clients then exit, the others
		// go on, as a server draining its connections would.
		onTerm := "touch " + marker(comp)
		if comp == cluster.Scheduler || comp == cluster.ControllerManager {
			onTerm += "; exit 0"
		}
		script := `trap '` + onTerm + `' TERM; echo up; while :; do sleep 0.05; done`
		p, err := localproc.Start(nil, string(comp), "/bin/sh", []string{"-c", script}, filepath.Join(dir, string(comp)+".log"), "")
		if err != nil {
			t.Fatal(err)
		}
		c.procs[comp] = p
	}
	waitLogged(t, c.procs)
	procs := map[cluster.Component]*localproc.Process{}
	for comp, p := range c.procs {
		procs[comp] = p
	}

	c.stop()

	for comp, p := range procs {
		if !p.Exited() {
			t.Errorf("%s still runs after stop", comp)
		}
		_, err := os.Stat(marker(comp))
		asked := err == nil
		switch comp {
		case cluster.Scheduler, cluster.ControllerManager:
			if !asked {
				t.Errorf("%s was killed, not asked to stop", comp)
			}
		default:
			if asked {
				t.Errorf("%s was asked to stop and given a grace period, though its state is thrown away", comp)
			}
		}
	}
	if len(c.procs) != 0 {
		t.Errorf("stop left processes on record: %v", c.procs)
	}
}

// waitLogged waits until every fake has printed "up", so its trap is set.
func waitLogged(t *testing.T, procs map[cluster.Component]*localproc.Process) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range procs {
		for {
			data, err := os.ReadFile(p.LogPath)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte("\nup\n")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never started: %s", p.Name, data)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
