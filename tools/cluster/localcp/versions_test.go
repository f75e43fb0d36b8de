package localcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "#!/bin/sh\necho 'Kubernetes v1.38.0-alpha.1.2+abc'\necho more\n", 0o755)
	if v, err := CheckBinary(context.Background(), nil, good); err != nil || v != "Kubernetes v1.38.0-alpha.1.2+abc" {
		t.Errorf("CheckBinary(good) = %q, %v", v, err)
	}
	for name, tc := range map[string]struct{ path, want string }{
		"missing":        {filepath.Join(dir, "nope"), "no such file"},
		"not executable": {write("plain", "x", 0o644), "not an executable"},
		"fails":          {write("bad", "#!/bin/sh\necho 'exec format error' >&2\nexit 126\n", 0o755), "does not run here"},
	} {
		if _, err := CheckBinary(context.Background(), nil, tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", name, err, tc.want)
		}
	}
}

// A binary the caller checked already is not asked again: its version
// comes from Options.Versions; an unknown one is asked, and its failure
// recorded as the version.
func TestBinaryVersionAsksOnce(t *testing.T) {
	p := New(Options{Versions: map[string]string{"/nonexistent/kube-scheduler": "Kubernetes v9.9.9"}})
	if v := p.binaryVersion(context.Background(), "/nonexistent/kube-scheduler"); v != "Kubernetes v9.9.9" {
		t.Errorf("seeded version = %q", v)
	}
	if v := p.binaryVersion(context.Background(), "/nonexistent/etcd"); !strings.HasPrefix(v, "unknown: ") {
		t.Errorf("unchecked missing binary = %q, want unknown", v)
	}
}
