// Package capabilities names the Linux capabilities a host cannot grant:
// those missing from its bounding set. Both the runtime wrapper and the
// engine set-up drop exactly these.
package capabilities

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// names are the capabilities by bit number, as Linux 6.x has them.
var names = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
	"CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
	"CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
	"CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// MissingCapabilities names the capabilities this process's bounding set
// lacks: what no runtime here can grant.
func Missing() ([]string, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("reading the capability bounding set: %w", err)
	}
	return MissingFrom(string(status))
}

// MissingFrom reads CapBnd from a /proc/<pid>/status text.
func MissingFrom(status string) ([]string, error) {
	for _, line := range strings.Split(status, "\n") {
		value, ok := strings.CutPrefix(line, "CapBnd:")
		if !ok {
			continue
		}
		bits, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("CapBnd %q: %w", strings.TrimSpace(value), err)
		}
		var missing []string
		for i, name := range names {
			if bits&(1<<uint(i)) == 0 {
				missing = append(missing, name)
			}
		}
		return missing, nil
	}
	return nil, fmt.Errorf("no CapBnd line in the process status")
}
