package usecase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Writing a generated file makes its folders.
func TestWriteOrCheckCreatesDirectories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "c.txt")
	var out, errs strings.Builder
	stale, err := writeOrCheck(map[string][]byte{path: []byte("x")}, false, "x", Streams{Out: &out, Err: &errs})
	if err != nil || stale {
		t.Fatalf("write: stale %v, err %v", stale, err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "x" {
		t.Errorf("read back %q, %v", data, err)
	}
}
