package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/host/snapshot"
)

// machine is what `engine down` needs to know of the machine as it was
// before draconform's dockerd first started, and what appeared while it
// started: of what a dockerd makes outside its own folders (the "docker"
// cgroups, folders Docker hard-codes), only that is the engine's.
type machine struct {
	Links   []string `json:"links"`
	Cgroups []string `json:"cgroups"`
	Paths   []string `json:"paths"`
	// Made are the cgroups and hard-coded folders that were not there
	// before and appeared while draconform's dockerd started and ran its
	// probe container. One that appears later may be another engine's
	// (the machine's own dockerd, which Debian enables, can start at any
	// time and makes the same ones), and is kept.
	Made []string `json:"made,omitempty"`
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
	// Proc is /proc, where the processes that hold a path are found.
	Proc string
}

func defaultHostPlaces(o Options) hostPlaces {
	return hostPlaces{NetClass: "/sys/class/net", CgroupRoot: "/sys/fs/cgroup", MountInfo: "/proc/self/mountinfo",
		Watched: []string{"/etc/docker", "/var/lib/docker", "/run/docker", "/run/docker.sock"},
		Parents: []string{filepath.Dir(o.StateDir), filepath.Dir(o.DataRoot), o.RunDir},
		Shared:  []string{"/run/containerd"},
		ProcSys: "/proc/sys", KernelSettings: slices.Concat(snapshot.KubeletKernelSettings, snapshot.KindNodeKernelSettings),
		Proc: "/proc"}
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

// noteMade adds to the record the cgroups and hard-coded folders that
// appeared since it was taken: called right after draconform's dockerd
// started and ran a container, when only it can have made them.
func (o Options) noteMade() error {
	before, err := o.readRecord()
	if err != nil {
		return err
	}
	now, err := o.host.read()
	if err != nil {
		return err
	}
	for _, p := range append(newOnes(before.Cgroups, now.Cgroups), newOnes(before.Paths, now.Paths)...) {
		if !contains(before.Made, p) {
			before.Made = append(before.Made, p)
		}
	}
	data, err := json.Marshal(before)
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.beforeFile(), data, 0o644); err != nil {
		return fmt.Errorf("noting what draconform's engine made as it started: %w", err)
	}
	return nil
}

// readRecord reads the record recordMachine and noteMade wrote.
func (o Options) readRecord() (machine, error) {
	var m machine
	data, err := os.ReadFile(o.beforeFile())
	if err != nil {
		return m, fmt.Errorf("no record of the machine before the engine started (%s): %w", o.beforeFile(), err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("reading %s: %w", o.beforeFile(), err)
	}
	return m, nil
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
