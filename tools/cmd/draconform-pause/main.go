// Command draconform-pause is the sandbox ("pause") container of the
// embedded provider's node: no registry is reachable there, so the node
// cannot pull registry.k8s.io/pause, and this is built from source instead.
// As a pod's first process it holds the pod's namespaces, and as PID 1 of
// the pod's PID namespace (when shared) it must reap orphans, or they stay
// zombies.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every child that has exited; one SIGCHLD may stand for
// several.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
