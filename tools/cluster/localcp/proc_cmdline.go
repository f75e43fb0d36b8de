package localcp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// runningProcess is a process as /proc shows it: its id and its
// arguments, argv[0] first.
type runningProcess struct {
	pid  int
	args []string
}

// otherProcesses lists the machine's processes, this one aside, with their
// command lines; those gone meanwhile and kernel threads (which have no
// command line) are left out.
func otherProcesses() ([]runningProcess, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []runningProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if args := commandLine(pid); args != nil {
			out = append(out, runningProcess{pid: pid, args: args})
		}
	}
	return out, nil
}

// commandLine is the arguments of process pid; nil when it is gone or is a
// kernel thread.
func commandLine(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	return splitCmdline(data)
}

// splitCmdline splits the contents of a /proc/<pid>/cmdline, NUL-ended
// arguments; nil for an empty one.
func splitCmdline(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}
