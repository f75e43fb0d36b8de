package shards

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/draconform/draconform/tools/internal/parentgone"
)

// runChild runs a draconform child (a shard, or a run of its own) the way
// every one must run:
//   - Interrupted, it stops its cluster and cleans up as on Ctrl-C; it is
//     killed only if it hangs past waitDelay.
//   - In a process group of its own: a Ctrl-C at the terminal reaches the
//     group of this process only, and the child gets it once, forwarded by
//     Cancel. Reaching it twice, ginkgo takes the second as "skip the
//     clean-up" and leaves the cell's folders.
//   - It dies with its parent too, cleaning up as on Ctrl-C: a parent
//     killed outright would otherwise leave it running, orphaned, with its
//     cluster. The death signal follows the thread that started the child,
//     so that thread stays this goroutine's until the child has ended. It
//     is parentgone.Signal, not SIGINT: Linux sends it again each time the child
//     passes to another of the dying parent's threads, and ginkgo would
//     count the repeats as a second Ctrl-C (the child's main turns the
//     first into one interrupt and ignores the rest).
func runChild(cmd *exec.Cmd, waitDelay time.Duration) error {
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: parentgone.Signal}
	cmd.WaitDelay = waitDelay
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}
