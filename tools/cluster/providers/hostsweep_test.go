package providers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runFolders makes, in tmp, a run folder and a kind folder as a killed run
// leaves them, and one whose run goes on (this test's process owns it).
func runFolders(t *testing.T, tmp string) (orphans []string, live string) {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"draconform-run-111", "draconform-kind-222", "draconform-run-333"} {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "kubeconfig-local-defaults"), []byte("token"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name == "draconform-run-333" {
			live = d
			continue
		}
		orphans = append(orphans, d)
	}
	// The orphans: one as an earlier version leaves it (no owner, a day
	// old), one whose recorded owner has exited.
	old := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(orphans[0], old, old); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(orphans[1], ".owner"), []byte(strconv.Itoa(gone.Process.Pid)+" 1\n"), 0o600)
	self, _ := os.ReadFile("/proc/self/stat")
	s := string(self)
	start := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])[19]
	_ = os.WriteFile(filepath.Join(live, ".owner"), []byte(strconv.Itoa(os.Getpid())+" "+start+"\n"), 0o600)
	return orphans, live
}

// TestSweepHostDryRunListsOrphanedRunFolders: the run's private
// kubeconfig copies and kind's, left by a killed run, are listed by
// cleanup --nodes --dry-run (which changes nothing on the machine).
func TestSweepHostDryRunListsOrphanedRunFolders(t *testing.T) {
	tmp := t.TempDir()
	orphans, live := runFolders(t, tmp)
	var out bytes.Buffer
	_ = SweepHost(&out, tmp, true)
	for _, d := range orphans {
		if !strings.Contains(out.String(), "would remove run folder "+d) {
			t.Errorf("cleanup --nodes --dry-run does not list %s:\n%s", d, out.String())
		}
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a dry run removed %s", d)
		}
	}
	if strings.Contains(out.String(), live) {
		t.Errorf("cleanup --nodes --dry-run lists %s, whose run goes on:\n%s", live, out.String())
	}
}

func TestSweepRunFoldersRemovesOnlyOrphans(t *testing.T) {
	tmp := t.TempDir()
	orphans, live := runFolders(t, tmp)
	var out bytes.Buffer
	if errs := sweepRunFolders(&out, tmp, false); len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, d := range orphans {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v\n%s", d, err, out.String())
		}
		if !strings.Contains(out.String(), "removed run folder "+d) {
			t.Errorf("output does not say %s went:\n%s", d, out.String())
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the folder of a run that goes on was removed: %v", err)
	}
}
