package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/draconform/draconform/tools/internal/mountinfo"
)

// removeLeftovers removes, once draconform's dockerd has stopped, what it
// made: its bridges and their veths, the cgroups and Docker's hard-coded
// folders that appeared while it started, and its data root, exec root,
// socket and state; and it writes back the kernel settings its kind nodes
// changed. What looks like Docker's but is not the engine's, or is held
// by another process, it keeps. It returns what it removed, what it kept
// and why, and what it wrote back.
func (o Options) removeLeftovers(ctx context.Context) (removed, kept, restored []string, err error) {
	before, err := o.readRecord()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w; nothing removed", err)
	}
	now, err := o.host.read()
	if err != nil {
		return nil, nil, nil, err
	}
	var errs []error
	links, kept := o.linkPlan(before, now)
	for _, l := range links {
		if out, err := o.Run(ctx, "ip", "link", "delete", l); err != nil {
			errs = append(errs, fmt.Errorf("ip link delete %s: %w: %s", l, err, strings.TrimSpace(string(out))))
			continue
		}
		removed = append(removed, "link "+l)
	}
	procs := readProcTable(o.host.Proc, os.Getpid())
	for _, c := range newOnes(before.Cgroups, now.Cgroups) {
		if why := cgroupKept(c, before.Made); why != "" {
			kept = append(kept, "cgroup "+c+": "+why)
			continue
		}
		if err := removeCgroup(c); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, "cgroup "+c)
	}
	r, k, err := o.removeFolders(before, procs)
	removed, kept = append(removed, r...), append(kept, k...)
	errs = append(errs, err)
	restored, err = o.host.restoreKernel(before.Kernel)
	return removed, kept, restored, errors.Join(append(errs, err)...)
}

// notMade is why a cgroup or hard-coded folder that was not there before
// is kept: it appeared after draconform's engine had started.
const notMade = "it did not appear while draconform's engine started, so another engine may have made it (the machine's own dockerd makes the same)"

// cgroupKept says why the cgroup c stays, "" when it goes: one that did not
// appear while the engine started, or that processes are still in.
func cgroupKept(c string, made []string) string {
	if !contains(made, c) {
		return notMade
	}
	if n := cgroupProcs(c); n > 0 {
		return fmt.Sprintf("%d processes are still in it", n)
	}
	return ""
}

// cgroupProcs counts the processes in a cgroup and its children.
func cgroupProcs(root string) int {
	n := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			data, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
			n += len(strings.Fields(string(data)))
		}
		return nil
	})
	return n
}

// pathPlan says which folders `engine down` removes: the engine's own
// (data root, exec root, socket, state), and Docker's hard-coded ones
// that appeared while it started; each only while no other process holds
// it. Shared ones go only when they hold nothing but empty folders. It
// says why it keeps a hard-coded folder that is new since the record, or
// any folder another process holds.
func (o Options) pathPlan(before machine, procs procTable) (remove, shared, kept []string) {
	candidates := []string{o.DataRoot, o.execRoot(), o.socket(), o.StateDir}
	for _, p := range append(append([]string{}, o.host.Watched...), o.host.Shared...) {
		switch {
		case contains(before.Paths, p):
		case contains(before.Made, p):
			candidates = append(candidates, p)
		case exists(p):
			kept = append(kept, p+": "+notMade+heldBy(procs, p, "; "))
		}
	}
	for _, p := range candidates {
		if !exists(p) {
			continue
		}
		if held := heldBy(procs, p, ""); held != "" {
			kept = append(kept, p+": "+held)
			continue
		}
		if contains(o.host.Shared, p) {
			shared = append(shared, p)
			continue
		}
		remove = append(remove, p)
	}
	return remove, shared, kept
}

// removeFolders removes what pathPlan says, unmounting what is still
// mounted under a folder first (never removing through a mount), and the
// engine's parent folders that are empty and were not there before.
func (o Options) removeFolders(before machine, procs procTable) (removed, kept []string, err error) {
	remove, shared, kept := o.pathPlan(before, procs)
	var errs []error
	for _, p := range remove {
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
	for _, p := range shared {
		if onlyEmptyFolders(p) && os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	for _, p := range o.host.Parents {
		if !contains(before.Paths, p) && os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed, kept, errors.Join(errs...)
}

// heldBy says which processes hold p, after sep; "" when none does.
func heldBy(procs procTable, p, sep string) string {
	held := procs.holders(p)
	if len(held) == 0 {
		return ""
	}
	return sep + "held by " + strings.Join(held, ", ")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
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
