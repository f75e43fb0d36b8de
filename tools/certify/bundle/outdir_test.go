package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run as root, a bundle, a part bundle or a signature is not written in a
// folder another user may swap (fsutil.OutputDir, tested there with a
// faked root): draconform refuses before it makes or writes anything.
func TestRootRefusesABundleFolderOthersCanSwap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("draconform refuses such folders as root only; fsutil's test fakes root")
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(shared, "bundle")
	for what, err := range map[string]error{
		"bundle":      Write(out, Inputs{RunDir: t.TempDir()}),
		"part bundle": WritePart(out, PartInputs{RunDir: t.TempDir()}),
		"signature":   Sign(shared, filepath.Join(t.TempDir(), "key")),
	} {
		if err == nil || !strings.Contains(err.Error(), "refusing to write draconform's output as root through "+shared+":") {
			t.Errorf("the %s in %s: %v", what, out, err)
		}
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("%s was made", out)
	}
}
