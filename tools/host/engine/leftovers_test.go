package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// upOnFakeHost starts the fake engine with its folders under the fake
// host's parents, as on a machine; made are the folders (relative to the
// fake host's root) its dockerd makes as it starts.
func upOnFakeHost(t *testing.T, f *fakeDocker, log *strings.Builder, made ...string) (Options, string) {
	t.Helper()
	o := options(t, f, log)
	h := o.host
	root := filepath.Dir(h.NetClass)
	o.DataRoot, o.RunDir = filepath.Join(h.Parents[0], "docker"), h.Parents[1]
	o.Host = "unix://" + filepath.Join(o.RunDir, "docker.sock")
	mkdir(t, h.Parents[0]) // shared with others, there before: kept
	f.onStart = func() {
		for _, d := range made {
			mkdir(t, filepath.Join(root, d))
		}
	}
	if _, err := Ensure(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o, root
}

// writeStore writes a network store for the engine naming bridges, as
// libnetwork's bolt file holds them: JSON among binary pages.
func writeStore(t *testing.T, o Options, bridges ...string) {
	t.Helper()
	mkdir(t, filepath.Dir(o.networkStore()))
	data := []byte("\x00\x10\xed\xda\x0c\x00docker/network/v1.0/bridge/")
	for _, b := range bridges {
		data = append(data, fmt.Sprintf(`{"AddressIPv4":"172.18.0.1/16","BridgeName":"%s","DefaultBridge":false}`, b)...)
		data = append(data, 0, 0, 0x13, 0x37)
	}
	if err := os.WriteFile(o.networkStore(), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// attach makes link a port of bridge, as sysfs shows it.
func attach(t *testing.T, h hostPlaces, link, bridge string) {
	t.Helper()
	mkdir(t, filepath.Join(h.NetClass, link))
	if err := os.Symlink("../"+bridge, filepath.Join(h.NetClass, link, "master")); err != nil {
		t.Fatal(err)
	}
}

// holdOpen makes process pid, named comm, hold target: an open file, or
// with inode a unix socket bound at target.
func holdOpen(t *testing.T, h hostPlaces, pid int, comm, target string, inode int) {
	t.Helper()
	dir := filepath.Join(h.Proc, fmt.Sprint(pid))
	mkdir(t, filepath.Join(dir, "fd"))
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := target
	if inode != 0 {
		link = fmt.Sprintf("socket:[%d]", inode)
		f, err := os.OpenFile(filepath.Join(h.Proc, "net", "unix"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "0000000000000000: 00000002 00000000 00010000 0001 01 %d %s\n", inode, target)
		f.Close()
	}
	if err := os.Symlink(link, filepath.Join(dir, "fd", fmt.Sprint(3+inode%7))); err != nil {
		t.Fatal(err)
	}
}

// Down removes what the engine made, and only that: a bridge and a
// cgroup of the machine's own, and a parent folder others use, stay.
func TestDownRemovesWhatTheEngineMadeAndNothingElse(t *testing.T) {
	f := &fakeDocker{}
	var log strings.Builder
	// What the dockerd makes as it starts and runs its probe container.
	o, root := upOnFakeHost(t, f, &log, "cgroup/cpu/docker/probe", "etc-docker", "run-containerd/s", "run-containerd-busy/s")
	h := o.host
	mkdir(t, filepath.Join(h.NetClass, "br-machines"))                // the machine's bridge, kept
	mkdir(t, filepath.Join(h.CgroupRoot, "memory", "docker", "mine")) // the machine's, kept
	// What kind's nodes make while they run: a network of the engine's,
	// a node on it and one on the default bridge.
	writeStore(t, o, "draconform0", "br-0123456789ab")
	mkdir(t, filepath.Join(h.NetClass, "br-0123456789ab"))
	attach(t, h, "vethabc", "br-0123456789ab")
	attach(t, h, "vethdef", OwnBridge)
	for _, d := range []string{"cgroup/cpu/docker/node/kubelet", "var-lib-draconform/docker/overlay2/x", "run-draconform/docker/netns"} {
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
	if want := []string{"vethabc", "vethdef", "br-0123456789ab", "draconform0"}; !slices.Equal(f.deleted, want) {
		t.Errorf("links deleted %q, want %q (veths first)", f.deleted, want)
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

// A dockerd draconform did not start (the machine's own, which Debian
// enables once docker.io is installed), started after draconform's
// engine with its data in /var/lib/docker, its socket and its bridge
// docker0, is untouched by `engine down`, running or stopped; and Down
// says what it kept and why.
func TestDownLeavesAMachineDockerdAlone(t *testing.T) {
	for _, running := range []bool{true, false} {
		t.Run(fmt.Sprintf("running=%v", running), func(t *testing.T) {
			f := &fakeDocker{}
			var log strings.Builder
			o, root := upOnFakeHost(t, f, &log)
			h := o.host
			writeStore(t, o, "draconform0")
			// The machine's dockerd: its bridge and a container's veth on
			// it, a network of its own, its data, socket and cgroup.
			mkdir(t, filepath.Join(h.NetClass, "docker0"))
			attach(t, h, "veth1234", "docker0")
			mkdir(t, filepath.Join(h.NetClass, "br-feedfeedfeed"))
			data := filepath.Join(root, "var-lib-docker", "image", "overlay2", "repositories.json")
			mkdir(t, filepath.Dir(data))
			if err := os.WriteFile(data, []byte("{}"), 0o600); err != nil {
				t.Fatal(err)
			}
			sock := filepath.Join(root, "run-docker.sock")
			if err := os.WriteFile(sock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			mkdir(t, filepath.Join(h.CgroupRoot, "memory", "docker", "ctr"))
			if running {
				holdOpen(t, h, 700, "dockerd", data, 0)
				holdOpen(t, h, 700, "dockerd", sock, 9001)
			}
			if err := Down(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if want := []string{OwnBridge}; !slices.Equal(f.deleted, want) {
				t.Errorf("links deleted %q, want only %q", f.deleted, want)
			}
			for _, kept := range []string{"net/docker0", "net/veth1234", "net/br-feedfeedfeed", "cgroup/memory/docker/ctr", "run-docker.sock",
				"var-lib-docker/image/overlay2/repositories.json"} {
				if _, err := os.Stat(filepath.Join(root, kept)); err != nil {
					t.Errorf("the machine's %s was removed: %v", kept, err)
				}
			}
			for _, said := range []string{"kept link docker0: not a bridge of draconform's engine", "kept link veth1234: it is attached to docker0",
				"kept link br-feedfeedfeed", "kept " + filepath.Join(root, "var-lib-docker") + ": it did not appear while draconform's engine started",
				"kept " + sock + ":"} {
				if !strings.Contains(log.String(), said) {
					t.Errorf("engine down does not say %q:\n%s", said, log.String())
				}
			}
			if running && !strings.Contains(log.String(), "held by dockerd (pid 700)") {
				t.Errorf("engine down does not name the dockerd that holds the machine's data:\n%s", log.String())
			}
		})
	}
}

// A folder of the engine's own that another process holds (its data root
// open in a containerd, its socket bound by a second dockerd) is kept, and
// Down names the process; the rest of the engine's folders go.
func TestDownKeepsWhatAnotherProcessHolds(t *testing.T) {
	f := &fakeDocker{}
	var log strings.Builder
	o, _ := upOnFakeHost(t, f, &log)
	h := o.host
	meta := filepath.Join(o.DataRoot, "containerd", "daemon", "meta.db")
	mkdir(t, filepath.Dir(meta))
	mkdir(t, o.execRoot())
	for _, p := range []string{meta, o.socket()} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	holdOpen(t, h, 555, "containerd", meta, 0)
	holdOpen(t, h, 556, "dockerd", o.socket(), 4242)
	if err := Down(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{meta, o.socket()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, held by another process, was removed: %v", p, err)
		}
	}
	for _, said := range []string{"kept " + o.DataRoot + ": held by containerd (pid 555)", "kept " + o.socket() + ": held by dockerd (pid 556)"} {
		if !strings.Contains(log.String(), said) {
			t.Errorf("engine down does not say %q:\n%s", said, log.String())
		}
	}
	for _, gone := range []string{o.execRoot(), o.StateDir} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s, which nothing holds, is left", gone)
		}
	}
}
