package shards

import (
	"strconv"
	"strings"
)

// Env is the environment of the shard processes, and so of the
// control planes they start: the cores shared out among the cells that run
// at once. A Go program runs as many threads as there are cores, and with
// four cells' kube-apiservers, etcds, schedulers and controller managers on
// 2 cores those threads mostly take CPU from each other: measured here over
// the whole matrix (6 runs without, 4 with, mostly alternating), GOMAXPROCS=1
// for every process took 9 % less CPU (median 187 against 206 CPU-s) and 5 %
// less wall time (132 against 139 s). Each cell gets its
// share of the cores (only the 2-core case was measured); a GOMAXPROCS the
// user set is kept, and a cell alone takes every core.
func Env(env []string, cores, cellsAtOnce int) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env
		}
	}
	if cellsAtOnce <= 1 {
		return env
	}
	return append(env, "GOMAXPROCS="+strconv.Itoa(max(1, cores/cellsAtOnce)))
}
