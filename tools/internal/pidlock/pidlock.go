// Package pidlock takes a folder for one process: an exclusive flock on a
// file in it that records the holder's pid, so that a second process is
// refused with the first one's name rather than sharing the folder.
package pidlock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// HeldError says that another process holds the lock.
type HeldError struct {
	Path string
	// Holder is the pid the holder wrote, empty if it wrote none yet.
	Holder string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by %s", e.Path, e.Who())
}

// Who names the holder: "process N", or "another process".
func (e *HeldError) Who() string {
	if e.Holder == "" {
		return "another process"
	}
	return "process " + e.Holder
}

// Take locks the file at path for this process without waiting, and writes
// this process's pid in it. The lock goes with the process, however it
// ends; the processes it starts do not inherit it (Go opens files
// close-on-exec). When another process holds it, the error is a *HeldError.
func Take(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &HeldError{Path: path, Holder: strings.TrimSpace(string(holder))}
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
