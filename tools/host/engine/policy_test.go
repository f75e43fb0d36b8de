package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The install keeps docker.io's service from starting with a policy-rc.d
// of its own, removes it after, and treats one a killed install left as its
// own; a policy-rc.d the machine's owner wrote stays as it was.
func TestInstallLeavesPolicyAsFound(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("install refuses to run without root")
	}
	stale := "#!/bin/sh\n" + policyMarker + "\nexit 101\n"
	owners := "#!/bin/sh\n# the owner's\nexit 0\n"
	for _, tc := range []struct {
		name, before, after string
	}{
		{"none", "", ""},
		{"left by a killed install", stale, ""},
		{"the owner's", owners, owners},
	} {
		path := filepath.Join(t.TempDir(), "policy-rc.d")
		if tc.before != "" {
			if err := os.WriteFile(path, []byte(tc.before), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var during string
		o := Options{Install: true, PolicyPath: path,
			lookPath: func(name string) (string, error) {
				if name == "dockerd" {
					return "", errors.New("not found")
				}
				return "/usr/bin/" + name, nil
			},
			Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
				data, _ := os.ReadFile(path)
				during = string(data)
				return nil, nil
			},
		}
		if err := o.install(context.Background()); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(during, "exit 101") && tc.before != owners {
			t.Errorf("%s: apt-get ran without a policy forbidding the start: %q", tc.name, during)
		}
		data, _ := os.ReadFile(path)
		if string(data) != tc.after {
			t.Errorf("%s: policy-rc.d after the install is %q, want %q", tc.name, data, tc.after)
		}
	}
}

func TestRemoveStalePolicyRemovesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	ours, owners := filepath.Join(dir, "ours"), filepath.Join(dir, "owners")
	os.WriteFile(ours, []byte("#!/bin/sh\n"+policyMarker+"\nexit 101\n"), 0o755)
	os.WriteFile(owners, []byte("#!/bin/sh\nexit 101\n"), 0o755)
	if removed, err := RemoveStalePolicy(Options{PolicyPath: ours}); !removed || err != nil {
		t.Errorf("draconform's policy-rc.d: removed %v, %v", removed, err)
	}
	if _, err := os.Stat(ours); !os.IsNotExist(err) {
		t.Errorf("draconform's policy-rc.d is still there: %v", err)
	}
	if removed, err := RemoveStalePolicy(Options{PolicyPath: owners}); removed || err != nil {
		t.Errorf("the owner's policy-rc.d: removed %v, %v", removed, err)
	}
	if _, err := os.Stat(owners); err != nil {
		t.Errorf("the owner's policy-rc.d is gone: %v", err)
	}
	if removed, err := RemoveStalePolicy(Options{PolicyPath: filepath.Join(dir, "none")}); removed || err != nil {
		t.Errorf("no policy-rc.d: removed %v, %v", removed, err)
	}
}
