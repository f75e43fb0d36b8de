// Package k8sbuild builds the binaries draconform runs, for every build it
// makes: released Kubernetes, the prototype's patched apiserver and
// scheduler, the node's container runtime and draconform's own commands. It
// owns what they share: a cache folder per key filled under an flock that
// several test processes wait on, the check for missing binaries, the go
// build runner with its heartbeat, and finding the repository.
package k8sbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Lock takes an exclusive flock on path, polling so that ctx can cancel the
// wait; who prefixes the one "waiting" line written to log.
func Lock(ctx context.Context, path string, log io.Writer, who string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening build lock %s: %w", path, err)
	}
	announced := false
	for {
		unlock, held, err := TryLock(f)
		switch {
		case unlock != nil:
			return unlock, nil
		case !held && !errors.Is(err, syscall.EINTR):
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !announced {
			fmt.Fprintf(log, "%s: another process is building (lock %s); waiting\n", who, path)
			announced = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for build lock %s: %w", path, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// TryLock takes an exclusive flock on the file f without waiting. unlock,
// when not nil, releases it and closes f; without it, f stays open for the
// caller, and held says another open file has the lock.
func TryLock(f *os.File) (unlock func(), held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		return nil, errors.Is(err, syscall.EWOULDBLOCK), err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, false, nil
}

// Heartbeat writes msg every period until stop is called: go build is
// silent for minutes, and a cold Kubernetes build must look alive.
func Heartbeat(w io.Writer, every time.Duration, msg string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	began := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(w, "%s (%s so far)\n", msg, time.Since(began).Round(time.Second))
			}
		}
	}()
	// Waiting for the goroutine keeps it from writing after stop returns,
	// when w may be a finished test's log.
	return func() { close(done); <-finished }
}

// SyncWriter serialises writes from several goroutines to one progress log.
type SyncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewSyncWriter wraps w; a nil w discards.
func NewSyncWriter(w io.Writer) *SyncWriter {
	if w == nil {
		w = io.Discard
	}
	if s, ok := w.(*SyncWriter); ok {
		return s
	}
	return &SyncWriter{w: w}
}

func (s *SyncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// Printf writes one line.
func (s *SyncWriter) Printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format+"\n", args...)
}
