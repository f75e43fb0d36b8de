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
	if v, err := CheckBinary(context.Background(), good); err != nil || v != "Kubernetes v1.38.0-alpha.1.2+abc" {
		t.Errorf("CheckBinary(good) = %q, %v", v, err)
	}
	for name, tc := range map[string]struct{ path, want string }{
		"missing":        {filepath.Join(dir, "nope"), "no such file"},
		"not executable": {write("plain", "x", 0o644), "not an executable"},
		"fails":          {write("bad", "#!/bin/sh\necho 'exec format error' >&2\nexit 126\n", 0o755), "does not run here"},
	} {
		if _, err := CheckBinary(context.Background(), tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", name, err, tc.want)
		}
	}
}
