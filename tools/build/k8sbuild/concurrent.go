package k8sbuild

import (
	"fmt"
	"os"
	"strings"
)

// concurrentBuildMemory is the memory under which builds run one after
// another: linking kube-apiserver alone takes about 2.5 GiB, and two go
// builds side by side with their links peaked near 6 GiB here.
const concurrentBuildMemory = 8 << 30

// ConcurrentBuilds says whether independent builds (vanilla Kubernetes, the
// prototype, the node's runtime) run side by side: only when
// DRACONFORM_CONCURRENT_BUILDS=1 asks for it and memory allows. Each go
// build already keeps every core busy, and side by side they compile the
// packages they share twice instead of taking them from the build cache:
// measured on 2 cores from empty caches, the three builds side by side took
// 23 min 5 s (both cores busy throughout), against about 14 min one after
// another (docs/bench.md).
func ConcurrentBuilds() bool {
	if os.Getenv("DRACONFORM_CONCURRENT_BUILDS") != "1" {
		return false
	}
	return MemTotal() >= concurrentBuildMemory
}

// MemTotal is the machine's memory in bytes, from /proc/meminfo; 0 if
// unknown.
func MemTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}
