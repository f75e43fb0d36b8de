package localnode

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/internal/mountinfo"
)

// StateRoot holds each node's state directory. Not the run's output
// folder: unix sockets (containerd's, the driver's under the kubelet's root)
// must stay under 108 bytes, and a checkout may live deep in the tree.
const StateRoot = "/var/lib/draconform"

// hostSupport says why this machine cannot run a node, wrapped in
// cluster.ErrUnsupported, or nil. It asks only what can be known without
// starting anything; the rest shows as a start failure with the log tail.
func HostSupport() error {
	var why []string
	if runtime.GOOS != "linux" {
		why = append(why, "a node runs on Linux only, this is "+runtime.GOOS)
	} else {
		if os.Geteuid() != 0 {
			why = append(why, "a node needs root (it mounts, creates cgroups and network namespaces): run as root, or use --provider kind")
		}
		if mounts, err := cgroupMounts(); err != nil || len(mounts) == 0 {
			why = append(why, fmt.Sprintf("no cgroup filesystem is mounted (%v)", err))
		}
		if cc := cCompiler(); cc != "" {
			if _, err := exec.LookPath(cc); err != nil {
				why = append(why, "no C compiler ("+cc+"): runc's nsenter is C, built with cgo (apt-get install gcc)")
			}
		}
		if _, err := exec.LookPath("ip"); err != nil {
			why = append(why, "the ip command (iproute2) is missing: it makes the node's bridge, where the kubelet serves, and removes it at the end")
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("this machine cannot run a kubelet node: %s: %w", strings.Join(why, "; "), cluster.ErrUnsupported)
}

// cCompiler is the compiler cgo would use for runc.
func cCompiler() string {
	if cc := strings.Fields(os.Getenv("CC")); len(cc) > 0 {
		return cc[0]
	}
	return "gcc"
}

// libseccompPresent says, naming the Debian packages, what a build of runc
// with seccomp lacks here: libseccomp-golang finds libseccomp's headers
// and library through pkg-config.
func libseccompPresent() error {
	const fix = "apt-get install libseccomp-dev pkg-config (as root; make node-deps does it)"
	if _, err := exec.LookPath("pkg-config"); err != nil {
		return fmt.Errorf("runc is built with seccomp, so that containers keep the runtime's default profile, which needs pkg-config to find libseccomp: %s: %w", fix, err)
	}
	if out, err := exec.Command("pkg-config", "--exists", "--print-errors", "libseccomp").CombinedOutput(); err != nil {
		return fmt.Errorf("runc is built with seccomp, so that containers keep the runtime's default profile, which needs libseccomp's headers (the Debian package libseccomp-dev), not found here: %s: %w: %s",
			fix, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// cgroupMounts lists the mount points of every cgroup hierarchy: on a
// cgroup v1 host one per controller (and the unified one beside them), on a
// v2 host just the one.
func cgroupMounts() ([]string, error) {
	entries, _, err := mountinfo.Read("/proc/self/mountinfo")
	var out []string
	for _, mi := range entries {
		if mi.FSType == "cgroup" || mi.FSType == "cgroup2" {
			out = append(out, mi.MountPoint)
		}
	}
	return out, err
}

// mountsUnder lists the mount points at or below dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	entries, _, err := mountinfo.Read("/proc/self/mountinfo")
	return mountinfo.Under(entries, dir), err
}

func filesystemSupported(fs string) bool {
	data, err := os.ReadFile("/proc/filesystems")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[len(f)-1] == fs {
			return true
		}
	}
	return false
}

// makeCgroupRoot creates the node's cgroup root in every hierarchy: the
// kubelet refuses a cgroupRoot that does not exist, and puts all its pods
// below it, where the clean stop finds them. A new cpuset cgroup on cgroup
// v1 starts with no CPUs and no memory nodes, so it gets its parent's.
func makeCgroupRoot(rel string) error {
	mounts, err := cgroupMounts()
	if err != nil {
		return fmt.Errorf("finding cgroup hierarchies: %w", err)
	}
	for _, m := range mounts {
		dir := filepath.Join(m, rel)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			parent, err := os.ReadFile(filepath.Join(m, f))
			if err != nil {
				continue // not the cpuset hierarchy
			}
			if err := os.WriteFile(filepath.Join(dir, f), parent, 0o644); err != nil {
				return fmt.Errorf("setting %s of %s: %w", f, dir, err)
			}
		}
	}
	return nil
}

// podSubnet gives each node its own /24 for pod addresses, from the node's
// id, so that nodes side by side do not hand out the same address.
func podSubnet(id string) string {
	var b [3]byte
	fmt.Sscanf(id, "%02x%02x%02x", &b[0], &b[1], &b[2])
	return fmt.Sprintf("10.%d.%d.0/24", 200+int(b[0])%50, b[1])
}
