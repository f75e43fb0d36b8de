package localnode

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/cluster/localproc"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The node leaves things behind that killing its processes does not take:
// container processes (children of shims that containerd started in their
// own sessions), the shims, mounts (the kubelet bind-mounts its root onto
// itself; rootfs overlays, shm, network namespaces, token volumes), cgroups,
// the CNI bridge, and the kubelet's log links in /var/log/containers. These
// functions find each by what is this node's alone: its state directory,
// its cgroup root, its containerd socket, its bridge name.

// containerLogLinks is where every kubelet links container logs; the path
// is fixed in the kubelet, not configurable.
const containerLogLinks = "/var/log/containers"

func sortDeepestFirst(paths []string) {
	sort.SliceStable(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
}

// cgroupDirs lists rel's directory in every cgroup hierarchy, and every
// directory below it, deepest first.
func cgroupDirs(rel string) []string {
	mounts, _ := cgroupMounts()
	var out []string
	for _, m := range mounts {
		root := filepath.Join(m, rel)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
	}
	sortDeepestFirst(out)
	return out
}

// cgroupPIDs lists the processes in rel's cgroups, in any hierarchy.
func cgroupPIDs(rel string) []int {
	seen := map[int]bool{}
	var out []int
	for _, dir := range cgroupDirs(rel) {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	sort.Ints(out)
	return out
}

// killCgroup kills every process in rel's cgroups until none is left, or
// the bound passes; processes forked meanwhile are caught by the next round.
func killCgroup(rel string, bound time.Duration) []int {
	var pids []int
	// Clean-up runs when the case's context may be gone already.
	_ = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, bound, true, func(context.Context) (bool, error) {
		pids = cgroupPIDs(rel)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return len(pids) == 0, nil
	})
	return cgroupPIDs(rel)
}

// removeCgroups removes rel's cgroups, deepest first. A cgroup whose last
// process has just been killed may stay busy for a moment, so it retries.
func removeCgroups(rel string, bound time.Duration) error {
	var busy []string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, bound, true, func(context.Context) (bool, error) {
		busy = nil
		for _, dir := range cgroupDirs(rel) {
			if err := syscall.Rmdir(dir); err != nil && !errors.Is(err, syscall.ENOENT) {
				busy = append(busy, fmt.Sprintf("%s: %v", dir, err))
			}
		}
		return len(busy) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("cgroups left: %s", strings.Join(busy, "; "))
	}
	return nil
}

// processesWithArg lists the processes whose command line has arg as one
// argument: the shims of one containerd carry its socket as -address.
func processesWithArg(arg string) []int {
	procs, _ := localproc.OtherProcesses()
	var out []int
	for _, p := range procs {
		if slices.Contains(p.Args, arg) {
			out = append(out, p.PID)
		}
	}
	return out
}

// unmountUnder unmounts everything at or below dir. MNT_DETACH, since a
// mount a dead container held may still be referenced for a moment; the
// kernel finishes it once the last user is gone.
func unmountUnder(dir string) error {
	var errs []string
	for round := 0; round < 3; round++ {
		mounts, err := mountsUnder(dir)
		if err != nil {
			return fmt.Errorf("reading mounts: %w", err)
		}
		if len(mounts) == 0 {
			return nil
		}
		errs = errs[:0]
		for _, m := range mounts {
			if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
				errs = append(errs, fmt.Sprintf("%s: %v", m, err))
			}
		}
	}
	if mounts, _ := mountsUnder(dir); len(mounts) > 0 {
		return fmt.Errorf("mounts left under %s: %s (%s)", dir, strings.Join(mounts, ", "), strings.Join(errs, "; "))
	}
	return nil
}

// removeLogLinks removes the kubelet's links to container logs that point
// into dir; the kubelet removes them only for containers it removes itself.
func removeLogLinks(dir string) []string {
	entries, err := os.ReadDir(containerLogLinks)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		p := filepath.Join(containerLogLinks, e.Name())
		target, err := os.Readlink(p)
		if err != nil || !strings.HasPrefix(target, dir+"/") {
			continue
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

func linkExists(name string) bool {
	_, err := os.Stat(filepath.Join("/sys/class/net", name))
	return err == nil
}

// deleteLink removes a network interface: the CNI bridge outlives every
// pod, since the bridge plugin never deletes it.
func deleteLink(name string) error {
	if !linkExists(name) {
		return nil
	}
	out, err := exec.Command("ip", "link", "delete", name).CombinedOutput()
	if err != nil && linkExists(name) {
		return fmt.Errorf("ip link delete %s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func pidAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// cniCache is where libcni keeps each attachment's result; containerd
// cannot move it.
const cniCache = "/var/lib/cni/results"

// removeCNICache removes the cached results of the node's network and of
// the loopback attachments of its sandboxes: a sandbox torn down through
// CRI removes its own, a killed one does not.
func removeCNICache(network string, sandboxes []string) {
	removeCNICacheIn(cniCache, network, sandboxes)
}

// removeCNICacheIn removes them from dir. The sandboxes are those
// containerd listed and those the network's own entries name
// (<network>-<sandbox>-<interface>): an orphaned node's containerd is gone
// and lists none, and its loopback entries would stay.
func removeCNICacheIn(dir, network string, sandboxes []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), network+"-"); ok {
			if i := strings.LastIndex(rest, "-"); i > 0 {
				sandboxes = append(sandboxes, rest[:i])
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		mine := strings.HasPrefix(name, network+"-")
		for _, id := range sandboxes {
			mine = mine || strings.HasPrefix(name, "cni-loopback-"+id+"-")
		}
		if mine {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
	// The directory stays, even empty: another node may be about to write
	// into it (the last node's stop removes it if a node made it).
}

// cniCacheEntries lists what of the node is in the CNI cache.
func cniCacheEntries(network string) []string {
	entries, _ := os.ReadDir(cniCache)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), network+"-") {
			out = append(out, filepath.Join(cniCache, e.Name()))
		}
	}
	return out
}
