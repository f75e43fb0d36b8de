package mountinfo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	line := `36 35 98:0 /mnt1 /mnt/with\040space rw,noatime master:1 - ext3 /dev/with\040a\040space rw,errors=continue`
	e, ok := Parse(line)
	if !ok || e.MountPoint != "/mnt/with space" || e.FSType != "ext3" || e.Source != "/dev/with a space" {
		t.Errorf("Parse = %+v, %v", e, ok)
	}
	if _, ok := Parse("36 35 98:0 /mnt1 /mnt rw"); ok {
		t.Error("a line without the separator parsed")
	}
	if got := Unescape(`a\134b\0`); got != `a\b\0` {
		t.Errorf("Unescape = %q", got)
	}
}

// Under lists a folder's mounts deepest first, and not a sibling that
// shares its prefix; Read keeps the lines it cannot parse apart.
func TestReadAndUnder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mountinfo")
	lines := []string{
		"36 35 98:0 / /var/lib/x rw - ext4 /dev/vda rw",
		"37 36 0:40 / /var/lib/x/a/b rw - tmpfs tmpfs rw",
		"38 36 0:41 / /var/lib/x/a rw - tmpfs tmpfs rw",
		"39 35 0:42 / /var/lib/xy rw - tmpfs tmpfs rw",
		"not a mount",
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, bad, err := Read(path)
	if err != nil || len(entries) != 4 || len(bad) != 1 || bad[0] != "not a mount" {
		t.Fatalf("Read = %d entries, bad %q, %v", len(entries), bad, err)
	}
	got := Under(entries, "/var/lib/x/")
	if want := []string{"/var/lib/x/a/b", "/var/lib/x/a", "/var/lib/x"}; !slices.Equal(got, want) {
		t.Errorf("Under = %q, want %q", got, want)
	}
}
