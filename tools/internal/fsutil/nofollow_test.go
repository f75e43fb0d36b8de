package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A link planted where draconform writes is refused and its target left
// as it was; an old file is replaced; a new one is made.
func TestWriteNewNeverWritesThroughALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "shadow")
	if err := os.WriteFile(victim, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "PRODUCT.yaml")
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(planted, []byte("owned\n"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("writing through a planted link: %v", err)
	}
	if err := CopyNew(victim, planted, 0o644); err == nil {
		t.Error("copying onto a planted link succeeded")
	}
	if data, _ := os.ReadFile(victim); string(data) != "root:secret\n" {
		t.Errorf("the link's target was changed: %q", data)
	}

	old := filepath.Join(dir, "sums")
	if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, filepath.Join(dir, "new")} {
		if err := WriteNew(p, []byte("fresh"), 0o644); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if data, _ := os.ReadFile(p); string(data) != "fresh" {
			t.Errorf("%s holds %q", p, data)
		}
	}
}
