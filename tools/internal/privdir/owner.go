package privdir

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/draconform/draconform/tools/internal/procstat"
)

// An owner is written "<pid> <start time>", the start time in clock ticks
// since boot as /proc/<pid>/stat gives it: a pid the kernel hands to a new
// process has another start time.

func selfOwner() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d %s", pid, startTime(pid))
}

// alive says whether the process an owner record names still runs.
func alive(owner string) bool {
	f := strings.Fields(owner)
	if len(f) != 2 {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return false
	}
	st := startTime(pid)
	return st != "" && st == f[1]
}

func ownerPID(owner string) int {
	f := strings.Fields(owner)
	if len(f) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(f[0])
	return pid
}

// startTime is field 22 of /proc/<pid>/stat; "" if pid is gone.
func startTime(pid int) string {
	f := procstat.Fields(pid)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
