// Package buildcache holds what the two builders of binaries share (the
// vanilla Kubernetes one in localcp and the prototype one): finding the
// repository, an flock that several test processes can wait on, a heartbeat
// for long silent builds, and a progress writer safe for several goroutines.
package buildcache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ModulePath is the module line FindRepoRoot looks for, so that nested
// modules (tools/k8sbin) are walked past.
const ModulePath = "github.com/draconform/draconform"

// FindRepoRoot walks up from the working directory to the directory whose
// go.mod declares ModulePath.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	for {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod with module %s above the working directory", ModulePath)
		}
		dir = parent
	}
}

func modulePathOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// Lock takes an exclusive flock on path, polling so that ctx can cancel the
// wait; who prefixes the one "waiting" line written to log.
func Lock(ctx context.Context, path string, log io.Writer, who string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening build lock %s: %w", path, err)
	}
	announced := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
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
