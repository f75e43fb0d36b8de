package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The node's runc is built with seccomp, which needs libseccomp's headers:
// make node-deps installs them (apt-get) where pkg-config does not find
// them and make runs as root, says how elsewhere, and leaves a machine
// that has them alone; the targets that build a node ask for it first.
// Stand-ins for apt-get, pkg-config and id record what would have run.
func TestMakeNodeDepsInstallsLibseccompWhereMissing(t *testing.T) {
	makeBin, root := makeAndRepo(t)
	for _, tc := range []struct {
		name       string
		found      bool
		uid        string
		want, says string
	}{
		{"headers there", true, "0", "", ""},
		{"missing, as root", false, "0", "update -qq\ninstall -y -qq libseccomp-dev pkg-config\n", "installing libseccomp-dev"},
		{"missing, not root", false, "1000", "", "apt-get install libseccomp-dev pkg-config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			calls := filepath.Join(t.TempDir(), "calls")
			pkgConfig := "exit 1"
			if tc.found {
				pkgConfig = "exit 0"
			}
			for name, script := range map[string]string{
				"apt-get":    "echo \"$@\" >> " + calls,
				"pkg-config": pkgConfig,
				"id":         "echo " + tc.uid,
			} {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(makeBin, "-s", "-C", root, "node-deps")
			cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make node-deps: %v\n%s", err, out)
			}
			if got, _ := os.ReadFile(calls); string(got) != tc.want {
				t.Errorf("apt-get ran %q, want %q\nmake said: %s", got, tc.want, out)
			}
			if !strings.Contains(string(out), tc.says) || (tc.says == "" && len(out) > 0) {
				t.Errorf("make node-deps said %q, want %q", out, tc.says)
			}
		})
	}
	for _, target := range []string{"conformance", "test", "host-check", "node-image-deps"} {
		out, err := exec.Command(makeBin, "-n", "-C", root, target).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "pkg-config --exists libseccomp") {
			t.Errorf("make %s does not ask for node-deps first (%v):\n%s", target, err, out)
		}
	}
}
