package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// A file already at the target, itself a link to another file, is replaced
// by the link, not written through: the other file keeps its bytes.
func TestLinkOrCopyReplacesRatherThanWritesThrough(t *testing.T) {
	dir := t.TempDir()
	from, other, to := filepath.Join(dir, "from"), filepath.Join(dir, "other"), filepath.Join(dir, "to")
	for p, data := range map[string]string{from: "new", other: "old"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(other, to); err != nil {
		t.Fatal(err)
	}
	if err := LinkOrCopy(from, to); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(other); string(got) != "old" {
		t.Errorf("the file the target linked to now holds %q", got)
	}
	a, errA := os.Stat(from)
	b, errB := os.Stat(to)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("the target is not a link to the source: %v, %v", errA, errB)
	}
}
