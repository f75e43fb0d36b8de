package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make test must not install a browser, and its desktop packages, on a
// machine whose owner did not ask: without CI or INSTALL_BROWSER=1, make
// browser says how to install it and runs no apt-get; with either, it
// installs it without recommended packages. A stand-in apt-get on a PATH
// without Chromium records what would have run.
func TestMakeBrowserInstallsOnlyWhenAsked(t *testing.T) {
	makeBin, root := makeAndRepo(t)
	for _, tc := range []struct {
		name string
		env  []string
		want string // what the stand-in apt-get recorded
	}{
		{"a developer's machine", nil, ""},
		{"CI", []string{"CI=true"}, "update -qq\ninstall -y -qq --no-install-recommends chromium-headless-shell\n"},
		{"consent", []string{"INSTALL_BROWSER=1"}, "update -qq\ninstall -y -qq --no-install-recommends chromium-headless-shell\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			calls := filepath.Join(t.TempDir(), "calls")
			fake := "#!/bin/sh\necho \"$@\" >> " + calls + "\n"
			if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(makeBin, "-s", "-C", root, "browser")
			cmd.Env = append([]string{"PATH=" + bin, "HOME=" + t.TempDir()}, tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make browser: %v\n%s", err, out)
			}
			got, _ := os.ReadFile(calls)
			if string(got) != tc.want {
				t.Errorf("apt-get ran %q, want %q\nmake said: %s", got, tc.want, out)
			}
			if tc.want == "" && !strings.Contains(string(out), "apt-get install --no-install-recommends chromium-headless-shell") {
				t.Errorf("make browser does not say how to install the browser:\n%s", out)
			}
		})
	}
}

// makeAndRepo is make's path and the repository's root, for tests that run
// a Makefile target with stand-ins; it skips where make is not installed.
func makeAndRepo(t *testing.T) (makeBin, root string) {
	t.Helper()
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skipf("make is not installed: %v", err)
	}
	root, err = filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return makeBin, root
}
