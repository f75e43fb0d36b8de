package localcp

import (
	"fmt"
	"github.com/draconform/draconform/tools/cluster/localnode"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeldNamesChildrenAndTheirFolders starts children as a run does and
// asks what a stop at once would leave.
func TestHeldNamesChildrenAndTheirFolders(t *testing.T) {
	tmp := t.TempDir()
	state := filepath.Join(tmp, "draconform-cell-123")
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command("sh", append([]string{"-c", "sleep 60", "sh"}, args...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	etcd := start("--data-dir="+filepath.Join(state, "etcd"), "--name=default")
	node := start("--root-dir", filepath.Join(localnode.StateRoot, "0123456789abcdef", "kubelet"))
	start("--config=" + filepath.Join(tmp, "other", "x.yaml")) // not draconform's
	// A grandchild, as a shard's etcd is of the run that started the
	// shard; only its own command line names its folder.
	shardState := filepath.Join(tmp, "draconform-shard-456")
	shard := exec.Command("sh", "-c", `sh -c "sleep 60" sh --data-dir="$D" & wait`)
	shard.Env = append(os.Environ(), "D="+filepath.Join(shardState, "etcd"))
	if err := shard.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(shard.Process.Pid, syscall.SIGKILL); _ = shard.Wait() })
	// /proc shows the new children once they run.
	deadline := time.Now().Add(5 * time.Second)
	var procs, dirs []string
	for time.Now().Before(deadline) {
		if procs, dirs = Held(os.Getpid(), tmp); len(dirs) >= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range []int{etcd.Process.Pid, node.Process.Pid} {
		if !slices.ContainsFunc(procs, func(p string) bool { return strings.HasSuffix(p, fmt.Sprintf("(pid %d)", pid)) }) {
			t.Errorf("Held's processes %q lack pid %d", procs, pid)
		}
	}
	want := []string{filepath.Join(localnode.StateRoot, "0123456789abcdef"), state, shardState}
	slices.Sort(want)
	if !slices.Equal(dirs, want) {
		t.Errorf("Held's folders = %q, want %q", dirs, want)
	}
}

func TestHeldFolder(t *testing.T) {
	for path, want := range map[string]string{
		"/tmp/draconform-a-1/pki/ca.crt":                "/tmp/draconform-a-1",
		"/tmp/draconform-a-1":                           "/tmp/draconform-a-1",
		"/tmp/other/draconform-a-1":                     "",
		"/tmp":                                          "",
		"relative/draconform-x":                         "",
		localnode.StateRoot + "/abcdef/kubelet":         localnode.StateRoot + "/abcdef",
		localnode.StateRoot + "/kernel-settings.json":   "",
		localnode.StateRoot + "/../etc/draconform-evil": "",
	} {
		if got := heldFolder(path, "/tmp"); got != want {
			t.Errorf("heldFolder(%q) = %q, want %q", path, got, want)
		}
	}
}
