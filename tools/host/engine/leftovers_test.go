package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Down removes what the engine made, and only that: a bridge and a
// cgroup of the machine's own, and a parent folder others use, stay.
func TestDownRemovesWhatTheEngineMadeAndNothingElse(t *testing.T) {
	f := &fakeDocker{}
	var log strings.Builder
	o := options(t, f, &log)
	h := o.host
	root := filepath.Dir(h.NetClass)
	o.DataRoot, o.RunDir = filepath.Join(h.Parents[0], "docker"), h.Parents[1]
	o.Host = "unix://" + filepath.Join(o.RunDir, "docker.sock")
	mkdir(t, filepath.Join(h.NetClass, "br-machines"))                // the machine's bridge, kept
	mkdir(t, filepath.Join(h.CgroupRoot, "memory", "docker", "mine")) // the machine's, kept
	mkdir(t, h.Parents[0])                                            // shared, was there: kept
	var deleted []string
	o.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name == "ip" {
			deleted = append(deleted, args[2])
			return nil, os.Remove(filepath.Join(h.NetClass, args[2]))
		}
		return f.run(ctx, name, args...)
	}
	if _, err := Ensure(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// What a dockerd and kind make while they run.
	for _, d := range []string{"net/docker0", "net/br-0123456789ab", "net/vethabc", "cgroup/cpu/docker/node/kubelet",
		"etc-docker", "var-lib-draconform/docker/overlay2/x", "run-draconform/docker/netns", "run-containerd/s",
		"run-containerd-busy/s"} {
		mkdir(t, filepath.Join(root, d))
	}
	// A kind node's kubelet sets the host's kernel.panic; the machine's
	// overcommit setting is the same after as before.
	writeSetting(t, h, "kernel.panic", "10")
	// Another containerd's shim socket, made meanwhile.
	if err := os.WriteFile(filepath.Join(root, "run-containerd-busy/s/abc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Down(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	slices.Sort(deleted)
	if want := []string{"br-0123456789ab", "docker0", "vethabc"}; !slices.Equal(deleted, want) {
		t.Errorf("links deleted %q, want %q", deleted, want)
	}
	for _, gone := range []string{"cgroup/cpu/docker", "etc-docker", "var-lib-draconform/docker", "run-draconform", "run-containerd", o.StateDir} {
		if !filepath.IsAbs(gone) {
			gone = filepath.Join(root, gone)
		}
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s is left", gone)
		}
	}
	if got := readSetting(t, h, "kernel.panic"); got != "1" {
		t.Errorf("kernel.panic = %s after engine down, want the machine's 1", got)
	}
	if !strings.Contains(log.String(), "wrote back kernel.panic=1") || strings.Contains(log.String(), "overcommit") {
		t.Errorf("engine down does not say which setting it wrote back, and only that one:\n%s", log.String())
	}
	for _, kept := range []string{"net/br-machines", "cgroup/memory/docker/mine", "var-lib-draconform", "net/eth0", "run-containerd-busy/s/abc"} {
		if _, err := os.Stat(filepath.Join(root, kept)); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
}
