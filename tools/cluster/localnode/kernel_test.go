package localnode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/host/snapshot"
)

// fakeKernel is a kernelState over a temporary /proc/sys holding values.
func fakeKernel(t *testing.T, values map[string]string) kernelState {
	t.Helper()
	k := kernelState{root: t.TempDir(), procSys: t.TempDir(), hostRoot: t.TempDir()}
	for name, v := range values {
		set(t, k, name, v)
	}
	return k
}

func set(t *testing.T, k kernelState, name, v string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(k.path(name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(k.path(name), []byte(v+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, k kernelState, name string) string {
	t.Helper()
	v, err := os.ReadFile(k.path(name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(v))
}

// Two nodes overlap: the first records the host's values, the second finds
// them recorded (its kubelet would record the first kubelet's), and only the
// last to stop puts them back.
func TestKernelSettingsComeBackWhenTheLastNodeStops(t *testing.T) {
	k := fakeKernel(t, map[string]string{"kernel.panic": "1", "kernel.panic_on_oops": "0", "vm.overcommit_memory": "0"})
	kubelet := func() {
		set(t, k, "kernel.panic", "10")
		set(t, k, "kernel.panic_on_oops", "1")
		set(t, k, "vm.overcommit_memory", "1")
	}
	a, b := filepath.Join(k.root, "aaaaaa"), filepath.Join(k.root, "bbbbbb")
	for _, dir := range []string{a, b} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := k.record(); err != nil {
			t.Fatal(err)
		}
		kubelet()
	}
	os.RemoveAll(a)
	if changed, err := k.restore(); err != nil || len(changed) > 0 {
		t.Fatalf("restore with node b still there changed %v (%v)", changed, err)
	}
	if got := get(t, k, "kernel.panic"); got != "10" {
		t.Errorf("kernel.panic = %s while a node runs, want the kubelet's 10", got)
	}
	os.RemoveAll(b)
	changed, err := k.restore()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"kernel.panic": "1", "kernel.panic_on_oops": "0", "vm.overcommit_memory": "0"} {
		if got := get(t, k, name); got != want {
			t.Errorf("%s = %s after the last node, want the host's %s", name, got, want)
		}
	}
	if len(changed) != 3 {
		t.Errorf("restore says it changed %v, want the three settings", changed)
	}
	if _, err := os.Stat(k.recordPath()); !os.IsNotExist(err) {
		t.Errorf("the record is left after the restore: %v", err)
	}
	// A later run records afresh.
	set(t, k, "kernel.panic", "5")
	if err := os.Mkdir(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := k.record(); err != nil {
		t.Fatal(err)
	}
	kubelet()
	os.RemoveAll(a)
	if _, err := k.restore(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, k, "kernel.panic"); got != "5" {
		t.Errorf("kernel.panic = %s after the second run, want 5", got)
	}
}

// TestHostSnapshotComparesEverySettingTheKubeletWrites holds the host
// check's list (tools/host/snapshot, which may not import this package) to
// the settings the node records and puts back.
func TestHostSnapshotComparesEverySettingTheKubeletWrites(t *testing.T) {
	for _, name := range kubeletKernelSettings {
		if !slices.Contains(snapshot.KubeletKernelSettings, name) {
			t.Errorf("the kubelet writes %s, and the host snapshot does not compare it", name)
		}
	}
}
