package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHost is a machine's links, cgroups and Docker folders in a
// temporary tree: lo and eth0, one cgroup hierarchy, no Docker.
func fakeHost(t *testing.T) hostPlaces {
	root := t.TempDir()
	h := hostPlaces{NetClass: filepath.Join(root, "net"), CgroupRoot: filepath.Join(root, "cgroup"),
		MountInfo: filepath.Join(root, "mountinfo"),
		Watched:   []string{filepath.Join(root, "etc-docker"), filepath.Join(root, "var-lib-docker"), filepath.Join(root, "run-docker.sock")},
		Parents:   []string{filepath.Join(root, "var-lib-draconform"), filepath.Join(root, "run-draconform")},
		Shared:    []string{filepath.Join(root, "run-containerd"), filepath.Join(root, "run-containerd-busy")},
		ProcSys:   filepath.Join(root, "proc-sys"), KernelSettings: []string{"kernel.panic", "vm.overcommit_memory", "vm.absent"},
		Proc: filepath.Join(root, "proc")}
	for _, d := range []string{"net/lo", "net/eth0", "cgroup/cpu", "cgroup/memory", "proc-sys/kernel", "proc-sys/vm", "proc/net"} {
		mkdir(t, filepath.Join(root, d))
	}
	if err := os.WriteFile(filepath.Join(h.Proc, "net", "unix"), []byte("Num       RefCount Protocol Flags    Type St Inode Path\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"kernel.panic": "1", "vm.overcommit_memory": "0"} {
		writeSetting(t, h, name, v)
	}
	if err := os.WriteFile(h.MountInfo, []byte("22 1 0:21 / / rw - ext4 /dev/vda rw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// The engine draconform starts is told to keep out of the machine's
// Docker: its data root, exec root, socket, configuration and key are its
// own, the firewall and forwarding untouched; and every docker command it
// runs names its socket.
func TestEngineKeepsToItsOwnFolders(t *testing.T) {
	o := Options{StateDir: "/s", DataRoot: "/d", RunDir: "/r"}.withDefaults()
	args := strings.Join(o.dockerdArgs(), " ")
	for _, want := range []string{"--host unix:///r/docker.sock", "--data-root /d", "--exec-root /r/docker",
		"--config-file /s/daemon.json", "--bridge draconform0", "--iptables=false", "--ip-forward=false"} {
		if !strings.Contains(args, want) {
			t.Errorf("dockerd %s lacks %s", args, want)
		}
	}
	for _, machine := range []string{"/var/lib/docker", "/var/run/docker", "/etc/docker", "docker0"} {
		if strings.Contains(args, machine) {
			t.Errorf("dockerd %s names the machine's %s", args, machine)
		}
	}
	f := &fakeDocker{}
	var log strings.Builder
	if _, err := Ensure(context.Background(), options(t, f, &log)); err != nil {
		t.Fatal(err)
	}
	o = options(t, f, &log)
	if err := o.writeDaemonConfig(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(o.daemonConfig()); err != nil || !strings.Contains(string(b), `"deprecated-key-path":"`+o.StateDir+`/key.json"`) {
		t.Errorf("daemon.json %s (%v) keeps the key in /etc/docker", b, err)
	}
	for _, c := range f.calls {
		if c == "ip link add name draconform0 type bridge" {
			continue
		}
		if !strings.HasPrefix(c, "docker --host "+OwnHost()+" ") && !strings.HasPrefix(c, "docker --host "+MachineHost+" info") {
			t.Errorf("a docker command not aimed at draconform's engine: %s", c)
		}
	}
}

// A machine's own engine is neither used nor joined by a second one
// unless the person says so with DOCKER_HOST.
func TestEnsureLeavesTheMachinesEngineAlone(t *testing.T) {
	f := &fakeDocker{machine: true}
	var log strings.Builder
	_, err := Ensure(context.Background(), options(t, f, &log))
	if err == nil || !strings.Contains(err.Error(), "DOCKER_HOST="+MachineHost) {
		t.Fatalf("err %v", err)
	}
	if len(f.starts) != 0 || len(f.calls) != 1 {
		t.Errorf("the machine's engine was used or joined: starts %q, calls %q", f.starts, f.calls)
	}
}

// PointDockerHost leaves the person's DOCKER_HOST as it is.
func TestPointDockerHostKeepsThePersonsChoice(t *testing.T) {
	t.Setenv("DOCKER_HOST", personsHost)
	if got := PointDockerHost(); got != personsHost || os.Getenv("DOCKER_HOST") != personsHost {
		t.Errorf("PointDockerHost() = %q, DOCKER_HOST %q", got, os.Getenv("DOCKER_HOST"))
	}
}

func writeSetting(t *testing.T, h hostPlaces, name, v string) {
	t.Helper()
	if err := os.WriteFile(h.kernelPath(name), []byte(v+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readSetting(t *testing.T, h hostPlaces, name string) string {
	t.Helper()
	v, err := os.ReadFile(h.kernelPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(v))
}
