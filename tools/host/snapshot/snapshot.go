// Package snapshot records what a run can change on the machine it runs on
// (kernel settings, mounts, cgroups, network links, firewall rules, Docker
// containers and images, and the names of files in the folders a node
// writes to) and says, in words, how two records differ. It changes
// nothing: every source is read, and a tool or engine that is missing is
// recorded as not compared rather than guessed at.
package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// The sections of a snapshot; each names its items in a difference.
const (
	Kernel  = "kernel setting"
	Mounts  = "mount"
	Cgroups = "cgroup"
	Links   = "network link"
	Files   = "file"
)

// Snapshot is one look at the machine: per section, its items, and per
// section that could not be read, why.
type Snapshot struct {
	// Items holds each section's items, sorted; a kernel setting is
	// "name=value".
	Items map[string][]string
	// NotCompared says, per section, why it was not read (a tool that is
	// not installed, no engine answering).
	NotCompared map[string]string
}

// Dir is a folder whose entries are recorded by name, Depth levels down
// (1: its entries only).
type Dir struct {
	Path  string
	Depth int
}

// Sources says where each section is read; HostSources is this machine's,
// a test's point at fake roots.
type Sources struct {
	// ProcSys is /proc/sys; KernelSettings are read below it.
	ProcSys        string
	KernelSettings []string
	// MountInfo is /proc/self/mountinfo.
	MountInfo string
	// CgroupRoot is /sys/fs/cgroup, read CgroupDepth levels down (the
	// hierarchies are the first level on a cgroup v1 host).
	CgroupRoot  string
	CgroupDepth int
	// NetClass is /sys/class/net.
	NetClass string
	// Dirs are the folders whose file names are compared.
	Dirs []Dir
	// Firewall are the commands that print the firewall's rules, each
	// compared where LookPath finds it.
	Firewall []Command
	// DockerSockets are the unix sockets a Docker engine may answer on.
	DockerSockets []string
	// LookPath and Output run the firewall commands: exec's, or a test's.
	LookPath func(string) (string, error)
	Output   func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Command is a program that prints rules, one a line.
type Command struct {
	Name string
	Args []string
}

func (c Command) String() string { return strings.Join(append([]string{c.Name}, c.Args...), " ") }

// KubeletKernelSettings are the settings a kubelet without
// protectKernelDefaults writes (tools/cluster/localcp's list, which a test
// there holds to this one), and the forwarding and bridge-filtering
// settings a CNI bridge may switch on.
var KubeletKernelSettings = []string{
	"kernel.panic_on_oops",
	"kernel.panic",
	"vm.overcommit_memory",
	"vm.panic_on_oom",
	"kernel.keys.root_maxkeys",
	"kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward",
	"net.bridge.bridge-nf-call-iptables",
	"net.bridge.bridge-nf-call-ip6tables",
}

// KindNodeKernelSettings are the settings a kind node writes on the host
// besides its kubelet's: the node runs systemd, which raises fs.file-max and
// fs.nr_open as it starts and applies its image's sysctl.d (the protected_*
// links and files, pid_max), and /proc/sys/fs is the host's. Measured here
// (2026-12-07): after make gate-matrix, fs.file-max, fs.protected_fifos,
// fs.protected_regular and fs.protected_symlinks had changed, and engine down
// wrote back only the kubelet's.
var KindNodeKernelSettings = []string{
	"fs.file-max",
	"fs.nr_open",
	"fs.protected_fifos",
	"fs.protected_hardlinks",
	"fs.protected_regular",
	"fs.protected_symlinks",
	"kernel.pid_max",
}

// HostSources are this machine's: the folders are those a run's nodes and
// control planes write to (/tmp and /var/lib one level down, the node
// state root and the kubelet's and CNI's fixed folders deeper, the
// kubelet's log folders, /run), and those a kubelet, containerd or CNI
// writes by default, which the embedded node moves into its own folder
// (tools/cluster/localnode): a regression there shows. Each folder is
// compared as there or not, so one made empty shows too.
func HostSources() Sources {
	sockets := []string{"/var/run/docker.sock", "/run/docker.sock"}
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		sockets = append([]string{h}, sockets...)
	}
	return Sources{
		ProcSys:        "/proc/sys",
		KernelSettings: KubeletKernelSettings,
		MountInfo:      "/proc/self/mountinfo",
		CgroupRoot:     "/sys/fs/cgroup",
		CgroupDepth:    3,
		NetClass:       "/sys/class/net",
		Dirs: []Dir{
			{os.TempDir(), 1}, {"/var/lib", 1}, {"/var/lib/draconform", 2},
			{"/var/lib/kubelet", 3}, {"/var/lib/cni", 3},
			{"/var/log/containers", 1}, {"/var/log/pods", 1}, {"/run", 1},
			// libmount's table (mount(8) as root makes its folder),
			// containerd's default state and shim sockets, network
			// namespaces, CNI's default config and plugins.
			{"/run/mount", 1}, {"/run/containerd", 1}, {"/run/netns", 1},
			{"/etc/cni", 2}, {"/opt/cni", 2},
		},
		Firewall: []Command{
			{Name: "iptables-save"}, {Name: "ip6tables-save"},
			{Name: "nft", Args: []string{"list", "ruleset"}},
		},
		DockerSockets: sockets,
		LookPath:      exec.LookPath,
		Output: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, name, args...).Output()
		},
	}
}

// Take reads every section. A section it cannot read where it should be
// able to (a /proc file missing) is an error; one that does not apply here
// (no iptables, no engine) is recorded in NotCompared.
func Take(ctx context.Context, s Sources) (*Snapshot, error) {
	snap := &Snapshot{Items: map[string][]string{}, NotCompared: map[string]string{}}
	readers := []struct {
		section string
		read    func() ([]string, error)
	}{
		{Kernel, func() ([]string, error) { return kernelSettings(s.ProcSys, s.KernelSettings), nil }},
		{Mounts, func() ([]string, error) { return mounts(s.MountInfo) }},
		{Cgroups, func() ([]string, error) { return tree(s.CgroupRoot, s.CgroupDepth, true) }},
		{Links, func() ([]string, error) { return tree(s.NetClass, 1, false) }},
		{Files, func() ([]string, error) { return files(s.Dirs) }},
	}
	for _, r := range readers {
		items, err := r.read()
		if err != nil {
			return nil, fmt.Errorf("reading the host's %ss: %w", r.section, err)
		}
		snap.Items[r.section] = sorted(items)
	}
	if err := firewall(ctx, s, snap); err != nil {
		return nil, err
	}
	docker(ctx, s.DockerSockets, snap)
	return snap, nil
}

func sorted(items []string) []string {
	if items == nil {
		items = []string{}
	}
	sort.Strings(items)
	return items
}
