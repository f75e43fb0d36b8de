// Package procstat reads a process's line of /proc/<pid>/stat, which both
// the search for a run's processes (their parents) and the owner records
// of private folders (their start times) need.
package procstat

import (
	"fmt"
	"os"
	"strings"
)

// Fields are the fields of /proc/<pid>/stat after the command, from field 3
// (state) on: Fields(pid)[1] is the parent's pid, [19] the start time in
// clock ticks since boot. nil if pid is gone or the line is not one.
func Fields(pid int) []string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return parse(string(stat))
}

// parse splits a stat line after its command, which is in parentheses and
// may hold spaces and parentheses of its own: the last ')' ends it.
func parse(s string) []string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil
	}
	return strings.Fields(s[i+2:])
}
