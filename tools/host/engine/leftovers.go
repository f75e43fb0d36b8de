package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/draconform/draconform/tools/host/snapshot"
	"github.com/draconform/draconform/tools/internal/mountinfo"
)

// machine is what `engine down` needs to know of the machine as it was
// before draconform's dockerd first started: what that dockerd makes
// outside its own folders (bridges, the "docker" cgroups, folders it
// hard-codes) is removed only where it was not there before.
type machine struct {
	Links   []string `json:"links"`
	Cgroups []string `json:"cgroups"`
	Paths   []string `json:"paths"`
	// Kernel are the settings a kind node's kubelet writes to the host's
	// /proc/sys (kernel.panic and others are not namespaced), as they
	// were: kind leaves them changed.
	Kernel map[string]string `json:"kernel,omitempty"`
}

// hostPlaces say where the machine's links, cgroups and Docker's
// hard-coded folders are; tests point them at a temporary tree.
type hostPlaces struct {
	NetClass, CgroupRoot, MountInfo string
	// Watched are folders a dockerd may make whatever its flags.
	Watched []string
	// Parents hold the engine's folders; others may use them too (the
	// embedded nodes' state root), so they are removed only when empty.
	Parents []string
	// Shared are folders any containerd's shims make, whatever its
	// state folder (/run/containerd/s): removed only when they hold
	// nothing but empty folders.
	Shared []string
	// ProcSys is /proc/sys, where KernelSettings are read and written back.
	ProcSys        string
	KernelSettings []string
}

func defaultHostPlaces(o Options) hostPlaces {
	return hostPlaces{NetClass: "/sys/class/net", CgroupRoot: "/sys/fs/cgroup", MountInfo: "/proc/self/mountinfo",
		Watched: []string{"/etc/docker", "/var/lib/docker", "/run/docker", "/run/docker.sock"},
		Parents: []string{filepath.Dir(o.StateDir), filepath.Dir(o.DataRoot), o.RunDir},
		Shared:  []string{"/run/containerd"},
		ProcSys: "/proc/sys", KernelSettings: slices.Concat(snapshot.KubeletKernelSettings, snapshot.KindNodeKernelSettings)}
}

func (o Options) beforeFile() string { return filepath.Join(o.StateDir, "machine-before.json") }

// recordMachine notes the machine as it is, once: a restart of the engine
// (with the runtime wrapper) keeps the first record, which predates the
// bridge the first start made.
func (o Options) recordMachine() error {
	if _, err := os.Stat(o.beforeFile()); err == nil {
		return nil
	}
	m, err := o.host.read()
	if err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(o.beforeFile(), data, 0o644)
}

func (h hostPlaces) read() (machine, error) {
	var m machine
	links, err := os.ReadDir(h.NetClass)
	if err != nil {
		return m, fmt.Errorf("reading the machine's links: %w", err)
	}
	for _, l := range links {
		m.Links = append(m.Links, l.Name())
	}
	m.Cgroups = h.dockerCgroups()
	for _, p := range append(append(append([]string{}, h.Watched...), h.Parents...), h.Shared...) {
		if _, err := os.Lstat(p); err == nil {
			m.Paths = append(m.Paths, p)
		}
	}
	m.Kernel = map[string]string{}
	for _, name := range h.KernelSettings {
		if v, err := os.ReadFile(h.kernelPath(name)); err == nil {
			m.Kernel[name] = strings.TrimSpace(string(v))
		}
	}
	return m, nil
}

func (h hostPlaces) kernelPath(name string) string {
	return filepath.Join(h.ProcSys, strings.ReplaceAll(name, ".", "/"))
}

// restoreKernel writes back the settings that changed since the record,
// once the engine and the kind nodes it ran are gone, and says which.
func (h hostPlaces) restoreKernel(before map[string]string) ([]string, error) {
	var restored []string
	var errs []error
	for _, name := range h.KernelSettings {
		want, ok := before[name]
		if !ok {
			continue
		}
		cur, err := os.ReadFile(h.kernelPath(name))
		if err != nil || strings.TrimSpace(string(cur)) == want {
			continue
		}
		if err := os.WriteFile(h.kernelPath(name), []byte(want+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s to %s: %w", name, want, err))
			continue
		}
		restored = append(restored, fmt.Sprintf("%s=%s (a kind node had set %s)", name, want, strings.TrimSpace(string(cur))))
	}
	return restored, errors.Join(errs...)
}

// dockerCgroups are the "docker" cgroups dockerd's cgroupfs driver makes
// in each hierarchy (or in the one of cgroup v2).
func (h hostPlaces) dockerCgroups() []string {
	found := map[string]bool{}
	for _, dir := range append([]string{h.CgroupRoot}, globDirs(h.CgroupRoot)...) {
		p := filepath.Join(dir, "docker")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				found[real] = true
			}
		}
	}
	var out []string
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func globDirs(root string) []string {
	entries, _ := os.ReadDir(root)
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(root, e.Name()))
	}
	return out
}

// removeLeftovers removes, once draconform's dockerd has stopped, what it
// made: its bridges and veths, its cgroups, Docker's hard-coded folders,
// and its data root, exec root, socket and state; and it writes back the
// kernel settings its kind nodes changed. It returns what it removed and
// what it wrote back.
func (o Options) removeLeftovers(ctx context.Context) (removed, restored []string, err error) {
	data, err := os.ReadFile(o.beforeFile())
	if err != nil {
		return nil, nil, fmt.Errorf("no record of the machine before the engine started (%s): %w; nothing removed", o.beforeFile(), err)
	}
	var before machine
	if err := json.Unmarshal(data, &before); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", o.beforeFile(), err)
	}
	now, err := o.host.read()
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for _, l := range newOnes(before.Links, now.Links) {
		if l == "docker0" || strings.HasPrefix(l, "br-") || strings.HasPrefix(l, "veth") {
			if out, err := o.Run(ctx, "ip", "link", "delete", l); err != nil {
				errs = append(errs, fmt.Errorf("ip link delete %s: %w: %s", l, err, strings.TrimSpace(string(out))))
				continue
			}
			removed = append(removed, "link "+l)
		}
	}
	for _, c := range newOnes(before.Cgroups, now.Cgroups) {
		if err := removeCgroup(c); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, "cgroup "+c)
	}
	r, err := o.removeFolders(before)
	removed = append(removed, r...)
	errs = append(errs, err)
	restored, err = o.host.restoreKernel(before.Kernel)
	return removed, restored, errors.Join(append(errs, err)...)
}

// removeFolders removes the engine's own folders and the watched ones that
// were not there before, unmounting what is still mounted under them
// first (never removing through a mount).
func (o Options) removeFolders(before machine) ([]string, error) {
	paths := []string{o.DataRoot, o.execRoot(), o.socket(), o.StateDir}
	for _, p := range o.host.Watched {
		if !contains(before.Paths, p) {
			paths = append(paths, p)
		}
	}
	var removed []string
	var errs []error
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := o.unmountUnder(p); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	for _, p := range o.host.Shared {
		if !contains(before.Paths, p) && onlyEmptyFolders(p) && os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	for _, p := range o.host.Parents {
		if !contains(before.Paths, p) && os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed, errors.Join(errs...)
}

// unmountUnder unmounts every mount at or below dir, deepest first.
func (o Options) unmountUnder(dir string) error {
	entries, _, err := mountinfo.Read(o.host.MountInfo)
	if err != nil {
		return err
	}
	under := mountinfo.Under(entries, dir)
	for _, m := range under {
		if err := syscall.Unmount(m, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("unmounting %s before removing %s: %w; left in place", m, dir, err)
		}
	}
	return nil
}

// removeCgroup removes a cgroup and its children, deepest first: a cgroup
// folder goes with rmdir, its control files with it.
func removeCgroup(root string) error {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("removing the cgroup %s: %w", d, err)
		}
	}
	return nil
}

// onlyEmptyFolders says whether dir exists and holds no file of any kind
// (socket, link) below it.
func onlyEmptyFolders(dir string) bool {
	if _, err := os.Lstat(dir); err != nil {
		return false
	}
	empty := true
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			empty = false
		}
		return nil
	})
	return empty
}

func newOnes(before, now []string) []string {
	var out []string
	for _, n := range now {
		if !contains(before, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
