// Package localproc runs and watches the child processes of the embedded
// providers, the control plane's (tools/cluster/localcp) and the node's
// (tools/cluster/localnode): start with a log, stop by group, wait for a
// health endpoint, pick free ports, read other processes' command lines.
package localproc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Running is a process as /proc shows it: its id and its
// arguments, argv[0] first.
type Running struct {
	PID  int
	Args []string
}

// OtherProcesses lists the machine's processes, this one aside, with their
// command lines; those gone meanwhile and kernel threads (which have no
// command line) are left out.
func OtherProcesses() ([]Running, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []Running
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if args := CommandLine(pid); args != nil {
			out = append(out, Running{PID: pid, Args: args})
		}
	}
	return out, nil
}

// CommandLine is the arguments of process pid; nil when it is gone or is a
// kernel thread.
func CommandLine(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	return SplitCmdline(data)
}

// SplitCmdline splits the contents of a /proc/<pid>/cmdline, NUL-ended
// arguments; nil for an empty one.
func SplitCmdline(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// Naming lists the programs (their argv[0]'s base names) of the
// running processes, this one aside, that name a path under dir on their
// command line.
func Naming(dir string) []string {
	procs, _ := OtherProcesses()
	var out []string
	for _, p := range procs {
		if slices.ContainsFunc(p.Args, func(a string) bool { return strings.Contains(a, dir+"/") }) {
			out = append(out, filepath.Base(p.Args[0]))
		}
	}
	return out
}
