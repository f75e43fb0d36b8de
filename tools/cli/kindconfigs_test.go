package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/usecase"
)

// The checked-in kind-configs/ must be what the cells give; make lint runs
// the same check.
func TestKindConfigsCheckedInAreCurrent(t *testing.T) {
	code, out, errs := run(t, "kind-configs", "--check", "--out", filepath.Join("..", "..", "kind-configs"))
	if code != 0 {
		t.Fatalf("kind-configs --check: code %d\n%s%s", code, out, errs)
	}
}

func TestKindConfigsWriteAndCheck(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, "kind-configs", "--out", dir); code != 0 {
		t.Fatalf("write: code %d: %s", code, errs)
	}
	defaults := filepath.Join(dir, "defaults.yaml")
	data, err := os.ReadFile(defaults)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), usecase.GeneratedMark) {
		t.Errorf("no generated header:\n%s", data)
	}
	if code, out, errs := run(t, "kind-configs", "--out", dir, "--check"); code != 0 || !strings.HasPrefix(out, "ok: 12 kind configs") {
		t.Fatalf("check after write: code %d, out %q, err %q", code, out, errs)
	}

	// A hand edit, a config whose cell is gone, and a user's own file.
	if err := os.WriteFile(defaults, append(data, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "old-cell.yaml")
	mine := filepath.Join(dir, "mine.yaml")
	for path, text := range map[string]string{gone: usecase.GeneratedMark + " from the gate cell \"old-cell\"\n", mine: "kind: Cluster\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := run(t, "kind-configs", "--out", dir, "--check")
	if code != 1 || !strings.Contains(errs, defaults+" is stale: run draconform kind-configs") || !strings.Contains(errs, gone+" is generated from no cell") {
		t.Fatalf("check: code %d, stderr:\n%s", code, errs)
	}
	if strings.Contains(errs, mine) {
		t.Errorf("a file draconform did not write is reported:\n%s", errs)
	}
	if code, _, errs := run(t, "kind-configs", "--out", dir); code != 0 {
		t.Fatalf("rewrite: %s", errs)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the config of a gone cell stays: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's file was removed: %v", err)
	}
}

func TestKindConfigsRefusesUnusableKEPBinaries(t *testing.T) {
	code, _, errs := run(t, "kind-configs", "--out", t.TempDir(), "--kep-bin-dir", t.TempDir())
	if code != 1 || !strings.Contains(errs, "kube-apiserver") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}
