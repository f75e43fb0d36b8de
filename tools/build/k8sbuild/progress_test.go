package k8sbuild

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHeartbeatStopsWhenTold(t *testing.T) {
	var out bytes.Buffer
	w := NewSyncWriter(&out)
	count := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return strings.Count(out.String(), "still busy")
	}
	stop := Heartbeat(w, 10*time.Millisecond, "still busy")
	time.Sleep(55 * time.Millisecond)
	stop()
	n := count()
	if n == 0 {
		t.Fatal("no heartbeat written")
	}
	time.Sleep(30 * time.Millisecond)
	if after := count(); after != n {
		t.Errorf("heartbeat wrote %d more lines after stop", after-n)
	}
}

func TestLockWaitsAndCancels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := Lock(context.Background(), path, os.Stderr, "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	var log bytes.Buffer
	if _, err := Lock(ctx, path, &log, "second"); err == nil {
		t.Fatal("a second lock was taken while the first was held")
	}
	if !strings.Contains(log.String(), "second: another process is building") {
		t.Errorf("the wait was not announced: %q", log.String())
	}
	unlock()
	again, err := Lock(context.Background(), path, os.Stderr, "test")
	if err != nil {
		t.Fatalf("lock not free after unlock: %v", err)
	}
	again()
}

func TestFindRepoRoot(t *testing.T) {
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "build", "k8sbin", "go.mod")); err != nil {
		t.Errorf("%s is not this repository: %v", root, err)
	}
}
