package localcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cell run in a process of its own takes the node's binaries its parent
// built, and refuses a record that names a file that is gone, rather than
// start a node on half of them.
func TestReuseNodeBinariesReadsTheParentsRecord(t *testing.T) {
	dir := t.TempDir()
	if _, err := reuseNodeBinaries(dir); err == nil {
		t.Fatal("no record, yet reuse succeeded")
	}
	b := NodeBinaries{Kubelet: filepath.Join(dir, "kubelet"), RuntimeDir: filepath.Join(dir, "runtime"), ToolsDir: filepath.Join(dir, "tools"),
		PauseArchive: filepath.Join(dir, "pause.tar"), DriverArchive: filepath.Join(dir, "driver.tar")}
	for _, f := range []string{b.Kubelet, b.RuntimeDir, b.ToolsDir, b.PauseArchive, b.DriverArchive} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeBuiltRecord(dir, b); err != nil {
		t.Fatal(err)
	}
	got, err := reuseNodeBinaries(dir)
	if err != nil || got != b {
		t.Fatalf("reuse = %+v, %v; want %+v", got, err, b)
	}
	if err := os.Remove(b.DriverArchive); err != nil {
		t.Fatal(err)
	}
	if _, err := reuseNodeBinaries(dir); err == nil || !strings.Contains(err.Error(), "driver.tar") {
		t.Errorf("reuse with the driver's archive gone: %v", err)
	}
}
