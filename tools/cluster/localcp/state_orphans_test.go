package localcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Only a cell's private folder that is old enough and that no process
// names is orphaned; the others are left, and RemoveOrphanState checks
// again before it removes one.
func TestOrphanedStateIsFoundAndRemoved(t *testing.T) {
	dir := t.TempDir()
	past := time.Now().Add(-2 * stateGrace)
	mk := func(name string, state, old bool) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(path, "pki"), 0o700); err != nil {
			t.Fatal(err)
		}
		if state {
			for _, f := range []string{"kubeconfig", filepath.Join("pki", "tokens.csv")} {
				if err := os.WriteFile(filepath.Join(path, f), []byte("secret"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		if old {
			if err := os.Chtimes(path, past, past); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	orphan := mk("draconform-defaults-1", true, true)
	young := mk("draconform-defaults-2", true, false)
	scratch := mk("draconform-binaries-3", false, true)
	inUse := mk("draconform-capacity-on-4", true, true)
	other := mk("someone-else-5", true, true)
	// A process that names a path in the folder, as etcd's --data-dir does.
	cmd := exec.Command("sh", "-c", "sleep 60", "sh", "--data-dir="+filepath.Join(inUse, "etcd"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	got, err := OrphanStates(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{orphan}) {
		t.Errorf("OrphanStates = %v, want only %s (not the young %s, the scratch %s, the used %s, nor %s)", got, orphan, young, scratch, inUse, other)
	}
	if err := RemoveOrphanState(inUse); err == nil || !strings.Contains(err.Error(), "in use by sh") {
		t.Errorf("RemoveOrphanState of a folder in use = %v, want it refused", err)
	}
	if err := RemoveOrphanState(scratch); err == nil {
		t.Error("RemoveOrphanState removed a folder that is no control plane's")
	}
	if err := RemoveOrphanState(orphan); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{orphan: false, young: true, scratch: true, inUse: true, other: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", path, err == nil, want)
		}
	}
}
