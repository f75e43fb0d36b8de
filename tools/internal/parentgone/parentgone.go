// Package parentgone is how a draconform child learns that its parent
// died: the parent starts it with Signal as its death signal, and the
// child's main turns the first Signal into one interrupt.
package parentgone

import (
	"os"
	"os/signal"
	"syscall"
)

// Signal is a draconform child's death signal. Not SIGINT: Linux sends the
// death signal again each time the child passes to another thread of its
// dying multi-threaded parent, and ginkgo counts a second SIGINT as "skip
// the clean-up".
const Signal = syscall.SIGUSR1

// InterruptOnce turns the first Signal into one SIGINT to this process, so
// that it cleans up as on one Ctrl-C, and swallows the repeats. It returns
// what stops listening.
func InterruptOnce() (stop func()) {
	return interruptOnce(func() { _ = syscall.Kill(os.Getpid(), syscall.SIGINT) })
}

func interruptOnce(interrupt func()) (stop func()) {
	gone := make(chan os.Signal, 8)
	signal.Notify(gone, Signal)
	done := make(chan struct{})
	go func() {
		select {
		case <-gone:
			interrupt()
		case <-done:
			return
		}
		for {
			select {
			case <-gone:
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(gone); close(done) }
}
