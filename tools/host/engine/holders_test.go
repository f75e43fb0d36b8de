package engine

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On this machine's own /proc: a unix socket this process binds, and a
// file it holds open, make their folders held by it; a sibling folder is
// held by nobody.
func TestProcTableFindsHoldersInTheRealProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	for _, d := range []string{"sock", "open", "free"} {
		mkdir(t, filepath.Join(dir, d))
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock", "docker.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f, err := os.Create(filepath.Join(dir, "open", "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	me := fmt.Sprintf("%s (pid %d)", strings.TrimSpace(string(comm)), os.Getpid())
	procs := readProcTable("/proc", 0)
	for _, d := range []string{"sock", "open"} {
		if got := procs.holders(filepath.Join(dir, d)); len(got) != 1 || got[0] != me {
			t.Errorf("holders of %s = %q, want [%s]", d, got, me)
		}
	}
	if got := procs.holders(filepath.Join(dir, "free")); len(got) != 0 {
		t.Errorf("holders of a folder nothing holds = %q", got)
	}
	if got := readProcTable("/proc", os.Getpid()).holders(dir); len(got) != 0 {
		t.Errorf("engine down's own process counts as a holder: %q", got)
	}
}
