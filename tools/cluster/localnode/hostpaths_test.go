package localnode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kubeletMakesItsFolders does what a node's kubelet and CNI do outside the
// node's folder: the device plugin folder with its socket and checkpoint,
// libcni's cache, the log link folder (its links gone with each node), and
// libmount's folder.
func kubeletMakesItsFolders(t *testing.T, k kernelState) {
	t.Helper()
	dp := k.hostPath("/var/lib/kubelet/device-plugins")
	for _, d := range []string{dp, k.hostPath("/var/lib/cni/results"), k.hostPath("/var/log/containers"), k.hostPath("/run/mount")} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range kubeletDevicePluginFiles {
		if err := os.WriteFile(filepath.Join(dp, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// nodeRuns records the host as a first node does and returns a function
// that ends it as the last node's stop does.
func nodeRuns(t *testing.T, k kernelState) func() []string {
	t.Helper()
	dir := filepath.Join(k.root, "aaaaaa")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := k.record(); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		os.RemoveAll(dir)
		changed, err := k.restore()
		if err != nil {
			t.Fatal(err)
		}
		return changed
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// On a machine with no kubelet of its own, the folders the node's kubelet
// and CNI made go with the last node (they were left before: run).
func TestFoldersTheNodesMadeGoWithTheLastNode(t *testing.T) {
	k := fakeKernel(t, map[string]string{"kernel.panic": "1"})
	stop := nodeRuns(t, k)
	kubeletMakesItsFolders(t, k)
	changed := stop()
	for _, p := range fixedHostPaths {
		if exists(k.hostPath(p)) {
			t.Errorf("%s is left after the last node", p)
		}
		if !slices.Contains(changed, "removed "+p) {
			t.Errorf("restore does not say it removed %s: %v", p, changed)
		}
	}
	if exists(k.pathsRecord()) {
		t.Errorf("the record of the folders is left")
	}
	if !exists(k.hostPath("/var/lib")) {
		t.Errorf("/var/lib itself went")
	}
}

// A device plugin folder that was there before is a real kubelet's: what
// is in it stays, the node's socket too (it cannot be told apart). A
// folder the node made that holds another's file stays, and is named.
func TestFoldersThatWereThereOrHoldOthersFilesStay(t *testing.T) {
	k := fakeKernel(t, map[string]string{"kernel.panic": "1"})
	plugin := k.hostPath("/var/lib/kubelet/device-plugins/nvidia.sock")
	if err := os.MkdirAll(filepath.Dir(plugin), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plugin, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stop := nodeRuns(t, k)
	kubeletMakesItsFolders(t, k)
	other := k.hostPath("/var/lib/cni/results/someone-else")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	changed := stop()
	for _, p := range []string{plugin, k.hostPath("/var/lib/kubelet/device-plugins/kubelet.sock"), other} {
		if !exists(p) {
			t.Errorf("%s went; it was not the nodes' to remove", p)
		}
	}
	got := strings.Join(changed, "; ")
	if !strings.Contains(got, "left /var/lib/cni/results, made by a node, since it holds [someone-else]") {
		t.Errorf("restore does not name the folder it left: %s", got)
	}
	if strings.Contains(got, "/var/lib/kubelet") {
		t.Errorf("restore speaks of the kubelet's folders, which were there before: %s", got)
	}
}

// An orphaned node's containerd is gone and lists no sandbox; the loopback
// results of its sandboxes are found through its network's own entries
// (a killed run left one here: run).
func TestOrphanedNodesLoopbackResultsGo(t *testing.T) {
	dir := t.TempDir()
	const sandbox = "25366c40457456e4bbb2197be033b979024caac12b78a2913a6a249793d009d7"
	other := "cni-loopback-ffff0000-lo"
	for _, f := range []string{"draconform-7f091778bb6f4928-" + sandbox + "-eth0", "cni-loopback-" + sandbox + "-lo", other, "draconform-0000000000000000-abcd-eth0"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removeCNICacheIn(dir, "draconform-7f091778bb6f4928", nil)
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{other, "draconform-0000000000000000-abcd-eth0"}; !slices.Equal(slices.Sorted(slices.Values(left)), slices.Sorted(slices.Values(want))) {
		t.Errorf("left %v; want only another's entries %v", left, want)
	}
}

// The state root a node made goes with the last node, once its folder is
// gone; one the machine had before stays (it was left empty before: run).
func TestTheStateRootGoesWithTheLastNodeOnlyIfANodeMadeIt(t *testing.T) {
	for _, before := range []bool{false, true} {
		k := fakeKernel(t, map[string]string{"kernel.panic": "1"})
		k.root = filepath.Join(t.TempDir(), "draconform")
		if before {
			if err := os.Mkdir(k.root, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		lock, err := claimNodeDir(filepath.Join(k.root, "aaaaaa"))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.record(); err != nil {
			t.Fatal(err)
		}
		lock.Close()
		os.RemoveAll(filepath.Join(k.root, "aaaaaa"))
		changed, err := k.restore()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case before && !exists(k.root):
			t.Errorf("a state root that was there before the node went")
		case before && exists(filepath.Join(k.root, rootMadeFile)):
			t.Errorf("a state root that was there before is marked as made")
		case !before && exists(k.root):
			t.Errorf("the state root the node made is left")
		case !before && !slices.Contains(changed, "removed "+k.root):
			t.Errorf("restore does not say it removed the state root: %v", changed)
		}
	}
}

// A restore never makes the state root (a node's stop after a start that
// failed early, cleanup --nodes on a clean machine), and it removes a root
// that a node made and left before recording anything.
func TestARestoreLeavesNoStateRootBehind(t *testing.T) {
	k := fakeKernel(t, map[string]string{"kernel.panic": "1"})
	k.root = filepath.Join(t.TempDir(), "draconform")
	if _, err := k.restore(); err != nil {
		t.Fatal(err)
	}
	if exists(k.root) {
		t.Fatal("a restore on a machine without the state root made it")
	}
	lock, err := claimNodeDir(filepath.Join(k.root, "aaaaaa"))
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
	os.RemoveAll(filepath.Join(k.root, "aaaaaa")) // the node's stop, before any record
	changed, err := k.restore()
	if err != nil {
		t.Fatal(err)
	}
	if exists(k.root) || !slices.Contains(changed, "removed "+k.root) {
		t.Errorf("the root a node made before failing is left (restore said %v)", changed)
	}
}

// The kubelet makes /var/log/containers at start, whatever its settings,
// and a mount(8) that ignores LIBMOUNT_UTAB makes /run/mount: made empty
// by the nodes, they go with the last node; there before, they stay.
func TestTheLogLinkAndMountTableFoldersGoOnlyIfTheNodesMadeThem(t *testing.T) {
	folders := []string{"/var/log/containers", "/run/mount"}
	for _, before := range []bool{false, true} {
		k := fakeKernel(t, map[string]string{"kernel.panic": "1"})
		if before {
			for _, p := range folders {
				if err := os.MkdirAll(k.hostPath(p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		stop := nodeRuns(t, k)
		for _, p := range folders {
			if err := os.MkdirAll(k.hostPath(p), 0o750); err != nil {
				t.Fatal(err)
			}
		}
		changed := stop()
		for _, p := range folders {
			switch {
			case before && !exists(k.hostPath(p)):
				t.Errorf("%s, there before the first node, went with the last", p)
			case !before && exists(k.hostPath(p)):
				t.Errorf("%s, made by a node, is left after the last node", p)
			case !before && !slices.Contains(changed, "removed "+p):
				t.Errorf("restore does not say it removed %s: %v", p, changed)
			}
		}
		if !exists(k.hostPath("/var/log")) || !exists(k.hostPath("/run")) {
			t.Errorf("a parent of the folders went")
		}
	}
}

// The kubelet's mount(8) keeps libmount's table in the node's folder, not
// in /run/mount, which libmount would make on the machine; the last
// LIBMOUNT_UTAB is the one a program reads, so the user's is overridden.
func TestTheKubeletsMountTableIsInTheNodesFolder(t *testing.T) {
	l := nodeLayout{dir: "/var/lib/draconform/0123456789abcdef"}
	env := kubeletEnv(l, []string{"PATH=/bin", "LIBMOUNT_UTAB=/run/mount/utab"})
	var utab string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LIBMOUNT_UTAB="); ok {
			utab = v
		}
	}
	if !strings.HasPrefix(utab, l.dir+"/") {
		t.Errorf("the kubelet's LIBMOUNT_UTAB is %q; want it in %s (environment %q)", utab, l.dir, env)
	}
	if !slices.Contains(env, "PATH=/bin") || !slices.Contains(env, "GOGC=400") {
		t.Errorf("the kubelet's environment %q lost the user's or the control plane's settings", env)
	}
}
