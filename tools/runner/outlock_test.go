package runner

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestOneRunPerOutputFolder(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock is per open file, so a second take in this process conflicts
	// as another process's would.
	if _, err := LockOutput(dir); err == nil {
		t.Fatal("a second run took the output folder of a running one")
	} else if msg := err.Error(); !strings.Contains(msg, "process "+strconv.Itoa(os.Getpid())) || !strings.Contains(msg, dir) || !strings.Contains(msg, "--out") {
		t.Errorf("the refusal does not name the holder, the folder and the way out: %v", err)
	}
	unlock()
	again, err := LockOutput(dir)
	if err != nil {
		t.Fatalf("the folder stays taken after its run ended: %v", err)
	}
	again()
}
