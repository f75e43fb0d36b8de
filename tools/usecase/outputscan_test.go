package usecase

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A credential a cell wrote anywhere in the output folder is reported, by
// file and line, and a clean folder passes.
func TestRunOutputIsScanned(t *testing.T) {
	out := t.TempDir()
	began := time.Now().Add(-time.Second)
	cell := filepath.Join(out, "prototype", "capacity-on")
	if err := os.MkdirAll(cell, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cell, "kube-apiserver.log"), []byte("ok\nI1205 kubectl --token=0123456789abcdef0123 get pods\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if scanOutput(out, began, Streams{Out: &bytes.Buffer{}, Err: &stderr}) {
		t.Fatal("a token in a cell's log passed")
	}
	if want := "kube-apiserver.log:2: a token on a command line"; !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "0123456789abcdef0123") {
		t.Errorf("stderr:\n%s\nwant %q, and never the token", stderr.String(), want)
	}
	_ = os.Remove(filepath.Join(cell, "kube-apiserver.log"))
	if !scanOutput(out, began, Streams{Out: &bytes.Buffer{}, Err: &stderr}) {
		t.Errorf("a clean folder failed: %s", stderr.String())
	}
}
