package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// holding is one thing a process holds: an open file, its working or
// root folder, its program, or a unix socket it has bound.
type holding struct {
	pid    int
	comm   string
	target string
}

// procTable is what the machine's processes hold, read once from /proc,
// this process left out: `engine down` removes nothing another process
// holds (a dockerd or containerd on the data root, a listener on the
// socket, a container's root folder).
type procTable []holding

// readProcTable reads proc (/proc). A process it may not read (another
// user's, or one that exited meanwhile) is passed over.
func readProcTable(proc string, self int) procTable {
	sockets := boundSockets(filepath.Join(proc, "net", "unix"))
	entries, _ := os.ReadDir(proc)
	var t procTable
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join(proc, e.Name())
		comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
		links := []string{filepath.Join(dir, "cwd"), filepath.Join(dir, "root"), filepath.Join(dir, "exe")}
		fds, _ := os.ReadDir(filepath.Join(dir, "fd"))
		for _, fd := range fds {
			links = append(links, filepath.Join(dir, "fd", fd.Name()))
		}
		for _, l := range links {
			target, err := os.Readlink(l)
			if err != nil {
				continue
			}
			target = strings.TrimSuffix(target, " (deleted)")
			if inode, ok := strings.CutPrefix(target, "socket:["); ok {
				if target, ok = sockets[strings.TrimSuffix(inode, "]")]; !ok {
					continue
				}
			}
			t = append(t, holding{pid: pid, comm: strings.TrimSpace(string(comm)), target: target})
		}
	}
	return t
}

// boundSockets maps the inodes of the unix sockets bound to a path to
// that path (/proc/net/unix: Num RefCount Protocol Flags Type St Inode
// Path); an open socket shows in /proc/<pid>/fd only as its inode.
func boundSockets(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 8 && strings.HasPrefix(fields[7], "/") {
			out[fields[6]] = fields[7]
		}
	}
	return out
}

// holders names the processes that hold path or anything below it, as
// "comm (pid n)", sorted; none when nothing does.
func (t procTable) holders(path string) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range t {
		if h.target != path && !strings.HasPrefix(h.target, path+"/") {
			continue
		}
		name := fmt.Sprintf("%s (pid %d)", orNothing(h.comm, "a process"), h.pid)
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
