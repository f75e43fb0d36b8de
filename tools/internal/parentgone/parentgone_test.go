package parentgone

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestRepeatsMakeOneInterrupt: a parent dying thread by thread sends the
// death signal several times; the child is interrupted once.
func TestRepeatsMakeOneInterrupt(t *testing.T) {
	var n atomic.Int32
	stop := interruptOnce(func() { n.Add(1) })
	defer stop()
	for range 4 {
		if err := syscall.Kill(os.Getpid(), Signal); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(2 * time.Second)
	for n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if got := n.Load(); got != 1 {
		t.Errorf("%d interrupts for 4 death signals, want 1", got)
	}
}
