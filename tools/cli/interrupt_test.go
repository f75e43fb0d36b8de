package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a writer the watcher's goroutine and the test share.
type syncBuffer struct {
	ch chan string
}

func (b syncBuffer) Write(p []byte) (int, error) {
	b.ch <- string(p)
	return len(p), nil
}

func TestWatchInterruptsCleansUpOnTheFirstAndStopsOnTheSecond(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	out := syncBuffer{ch: make(chan string, 16)}
	ctx, cancel := context.WithCancelCause(context.Background())
	exited := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		WatchInterrupts(sigs, cancel, out, func(code int) { exited <- code })
		close(done)
	}()

	sigs <- os.Interrupt
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first interrupt did not cancel the run")
	}
	if cause := context.Cause(ctx); cause == nil || !strings.Contains(cause.Error(), "interrupt") {
		t.Errorf("cause = %v, want one naming the signal", cause)
	}
	if msg := <-out.ch; !strings.Contains(msg, "cleaning up") || !strings.Contains(msg, "Ctrl-C again") {
		t.Errorf("first interrupt said %q", msg)
	}
	select {
	case code := <-exited:
		t.Fatalf("exited with %d on the first interrupt", code)
	default:
	}

	sigs <- syscall.SIGTERM
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit code %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second interrupt did not stop it")
	}
	if msg := <-out.ch; !strings.Contains(msg, "draconform cleanup --nodes") || !strings.Contains(msg, "without cleaning up") {
		t.Errorf("second interrupt said %q", msg)
	}
	<-done
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("ctx.Err() = %v", ctx.Err())
	}
}

func TestWatchInterruptsEndsWithItsChannel(t *testing.T) {
	sigs := make(chan os.Signal)
	close(sigs)
	done := make(chan struct{})
	go func() {
		WatchInterrupts(sigs, func(error) { t.Error("cancelled without a signal") }, syncBuffer{ch: make(chan string, 4)}, func(int) { t.Error("exited without a signal") })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WatchInterrupts did not return once its channel closed")
	}
}
