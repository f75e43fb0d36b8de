package localcp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/cluster/localproc"
	"github.com/draconform/draconform/tools/internal/procstat"
)

// Held lists what the draconform process pid has running or written on
// this machine that a stop without clean-up leaves: its child processes
// (the control planes' and nodes' binaries, which die with it, and
// whatever they forked, which may not) and the folders their command lines
// name, a control plane's private folder in tmp (its PKI, admin token and
// etcd data) or a node's state folder under localnode.StateRoot (its
// containers, mounts and cgroups hang off it). `draconform cleanup
// --nodes` removes both kinds once the process is gone.
func Held(pid int, tmp string) (procs, dirs []string) {
	for _, child := range descendants(pid) {
		args := localproc.CommandLine(child)
		if args == nil {
			continue // exited meanwhile, or a kernel thread
		}
		procs = append(procs, fmt.Sprintf("%s (pid %d)", filepath.Base(args[0]), child))
		for _, a := range args[1:] {
			if _, v, ok := strings.Cut(a, "="); ok {
				a = v
			}
			if d := heldFolder(a, tmp); d != "" && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.Sort(dirs)
	return procs, dirs
}

// descendants lists pid's children, their children and so on: a sharded
// run's control planes are its shards' children.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parent := parentOf(p); parent > 0 {
			kids[parent] = append(kids[parent], p)
		}
	}
	var out []int
	for queue := kids[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, kids[queue[0]]...)
	}
	return out
}

// heldFolder is the draconform folder path lies in: tmp/draconform-* or
// localnode.StateRoot/<id>; "" for any other path.
func heldFolder(path, tmp string) string {
	for _, root := range []string{filepath.Clean(tmp), localnode.StateRoot} {
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") || !filepath.IsAbs(path) {
			continue
		}
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		if root == localnode.StateRoot && localnode.IsID(first) || root != localnode.StateRoot && strings.HasPrefix(first, "draconform-") {
			return filepath.Join(root, first)
		}
	}
	return ""
}

// parentOf reads pid's parent from /proc; 0 if pid is gone.
func parentOf(pid int) int {
	f := procstat.Fields(pid)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
