package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ownedInfo is a file's FileInfo with another owner.
type ownedInfo struct {
	fs.FileInfo
	st syscall.Stat_t
}

func (o ownedInfo) Sys() any { return &o.st }

// asRoot is the guard of a root process over the test's folders: every
// folder is root's, but those named in others, which belong to uid 1000.
func asRoot(others ...string) outputGuard {
	return outputGuard{euid: 0, lstat: func(path string) (fs.FileInfo, error) {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		st := *fi.Sys().(*syscall.Stat_t)
		st.Uid = 0
		for _, o := range others {
			if filepath.Clean(o) == path {
				st.Uid = 1000
			}
		}
		return ownedInfo{fi, st}, nil
	}}
}

// As root, an output folder another user could swap is refused, naming
// it: one in a folder others may write (not sticky), one of another
// user's, one reached through another user's link, one others may write.
// A folder draconform makes itself, under root's folders or in a sticky
// one like /tmp, is written; and a user who is not root is not refused.
func TestOutputDirAsRootRefusesFoldersOthersCanSwap(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "shared")
	mustMkdir(t, open, 0o777)
	sticky := filepath.Join(base, "sticky")
	mustMkdir(t, sticky, 0o777|fs.ModeSticky)
	theirs := filepath.Join(base, "theirs")
	mustMkdir(t, theirs, 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(sticky, link); err != nil {
		t.Fatal(err)
	}
	writable := filepath.Join(sticky, "writable")
	mustMkdir(t, writable, 0o777)
	for _, tt := range []struct {
		out, blamed string
		g           outputGuard
	}{
		{filepath.Join(open, "bundle"), open, asRoot()},
		{filepath.Join(theirs, "bundle"), theirs, asRoot(theirs)},
		{theirs, theirs, asRoot(theirs)},
		{filepath.Join(link, "bundle"), link, asRoot(link)},
		{writable, writable, asRoot()},
	} {
		err := tt.g.make(tt.out)
		if err == nil || !strings.Contains(err.Error(), "through "+tt.blamed+":") {
			t.Errorf("%s: %v, want a refusal naming %s", tt.out, err, tt.blamed)
		}
	}
	if _, err := os.Lstat(filepath.Join(open, "bundle")); err == nil {
		t.Error("the refused folder was made")
	}
	for _, out := range []string{filepath.Join(sticky, "bundle", "part"), filepath.Join(link, "via-link"), filepath.Join(base, "own")} {
		if err := asRoot().make(out); err != nil {
			t.Errorf("%s: %v", out, err)
		}
		if fi, err := os.Stat(out); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s was not made writable by its owner alone: %v %v", out, fi, err)
		}
	}
	notRoot := outputGuard{euid: 1000, lstat: os.Lstat}
	if err := notRoot.make(filepath.Join(open, "as-a-user")); err != nil {
		t.Errorf("a user's output folder in a shared folder: %v", err)
	}
}

func mustMkdir(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	// Mkdir's mode passes through the umask, and drops the sticky bit.
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
