package privdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exitedOwner is the owner record of a process that has ended: taken while
// it ran, as Make takes it.
func exitedOwner(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := startTime(cmd.Process.Pid)
	if start == "" {
		t.Fatal("no start time for a running process")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return strconv.Itoa(cmd.Process.Pid) + " " + start
}

func TestOrphansAreFoldersWhoseOwnerIsGone(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mine, err := Make("draconform-run-")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(mine); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("Make's folder %s: %v, mode %v; want 0700", mine, err, fi.Mode().Perm())
	}
	mk := func(name, owner string, age time.Duration) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(d, when, when); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dead := mk("draconform-run-dead", exitedOwner(t), 0)
	// A pid in use again, by another process: this one, with another start.
	reused := mk("draconform-kind-reused", strconv.Itoa(os.Getpid())+" 1", 0)
	young := mk("draconform-kind-unowned-young", "", time.Hour)
	old := mk("draconform-run-unowned-old", "", 25*time.Hour)
	// draconform up's kubeconfig, which holds the admin token, left by a
	// killed up.
	up := mk("draconform-up-killed", exitedOwner(t), 0)
	kept := mk("draconform-kind-kept", exitedOwner(t), 0)
	if err := Keep(kept); err != nil {
		t.Fatal(err)
	}
	mk("draconform-defaults-123", exitedOwner(t), 48*time.Hour) // a control plane's, not ours
	mk("other-run-x", exitedOwner(t), 48*time.Hour)

	got, err := Orphans(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{dead, reused, old, up} {
		if _, ok := got[want]; !ok {
			t.Errorf("Orphans lacks %s: %v", want, got)
		}
	}
	for _, spared := range []string{mine, young, kept} {
		if why, ok := got[spared]; ok {
			t.Errorf("Orphans lists %s (%s)", spared, why)
		}
	}
	if len(got) != 4 {
		t.Errorf("Orphans = %v, want 4", got)
	}
	if err := RemoveOrphan(mine); err == nil {
		t.Error("RemoveOrphan removed the folder of a running process")
	}
	if err := RemoveOrphan(dead); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s after RemoveOrphan: %v", dead, err)
	}
	if owned := OwnedBy(tmp, os.Getpid()); len(owned) != 2 || !strings.Contains(strings.Join(owned, " "), mine) {
		t.Errorf("OwnedBy(this process) = %q, want %s and the reused-pid folder", owned, mine)
	}
}
