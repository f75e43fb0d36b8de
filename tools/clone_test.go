package tools

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A clone of the repository must pass its own checks wherever it lands: CI
// once passed only because its checkout had a folder beside it that the
// README linked to (../shared/), and a newcomer's clone failed make lint. So
// make lint runs here in a copy of what a clone holds, in a folder that has
// nothing beside it.
//
// The copy is the working tree's tracked and not-ignored files rather than a
// git clone of HEAD, so that a change not yet committed is what is checked.
func TestACloneWithNothingBesideItPassesLint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets the whole module in a copy of the repository")
	}
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout, so there is no clone to imitate: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "draconform")
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		if err := copyFile(filepath.Join(root, name), filepath.Join(clone, name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "lint")
	cmd.Dir = clone
	// The make that runs go test must not pass its own settings to this one.
	cmd.Env = withoutVars(os.Environ(), "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("make lint in a clone with nothing beside it (%s): %v\n%s", clone, err, tail(out.String(), 40))
	}
}

// copyFile copies one file of the checkout, keeping its mode (.ci/run is
// executable); a file git lists but the tree lacks (deleted, not yet
// committed) is left out, as a commit would leave it.
func copyFile(from, to string) error {
	info, err := os.Lstat(from)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func withoutVars(env []string, names ...string) []string {
	var kept []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			kept = append(kept, kv)
		}
	}
	return kept
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
