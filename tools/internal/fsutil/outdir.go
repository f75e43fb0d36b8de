package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// OutputDir makes dir, and the folders above it that are missing, for
// draconform to write its outputs into (a bundle, its signature, a merged
// bundle, Sonobuoy's results). As root it first refuses a folder another
// user could swap: WriteNew's O_NOFOLLOW guards the file's own name only,
// and a user who may rename an entry anywhere on the path (a folder of
// theirs, or one they may write that is not sticky) can put a link to
// /etc there between this check and the write. Once every folder on the
// path is root's and writable by root alone, no one else can, so the check
// holds for the writes after it. Run as another user, draconform writes
// only what that user may, and makes the folder as before.
func OutputDir(dir string) error {
	return outputGuard{euid: os.Geteuid(), lstat: os.Lstat}.make(dir)
}

// outputGuard is OutputDir with who runs and what the folders are given,
// so that a test can be root over folders it made.
type outputGuard struct {
	euid  int
	lstat func(string) (fs.FileInfo, error)
}

func (g outputGuard) make(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", dir, err)
	}
	if g.euid != 0 {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return fmt.Errorf("output folder: %w", err)
		}
		return nil
	}
	if err := g.walk(abs, true, true); err != nil {
		return err
	}
	// The path as written may pass through links; the folders they lead
	// to are checked as well, down to the one written into.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", abs, err)
	}
	return g.walk(real, false, true)
}

// walk checks each folder from / down to path, making those missing when
// create says so; output says path is the output folder itself. An entry
// that is a link is checked for its owner (who may replace it), and the
// folder it names for everything.
func (g outputGuard) walk(path string, create, output bool) error {
	cur := string(filepath.Separator)
	parts := strings.Split(strings.TrimPrefix(path, cur), string(filepath.Separator))
	for i, part := range append([]string{""}, parts...) {
		cur = filepath.Join(cur, part)
		fi, err := g.lstat(cur)
		if errors.Is(err, fs.ErrNotExist) && create {
			// Made here, by root: 0755 and root's.
			if err = os.Mkdir(cur, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = g.lstat(cur)
			}
		}
		if err != nil {
			return fmt.Errorf("output folder %s: %w", path, err)
		}
		last := i == len(parts)
		if err := g.safe(cur, fi, output && last); err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return fmt.Errorf("output folder %s: %w", path, err)
			}
			if err := g.walk(real, false, output && last); err != nil {
				return err
			}
		}
	}
	return nil
}

// safe refuses an entry on the path that another user could replace, or
// a folder in which they could replace entries; the output folder itself
// (leaf) may be written by root alone, sticky or not, so that no one else
// puts anything in it.
func (g outputGuard) safe(path string, fi fs.FileInfo, leaf bool) error {
	refuse := func(why string) error {
		return fmt.Errorf("refusing to write draconform's output as root through %s: %s, so that user could swap it, or a folder in it, for a link to anywhere (/etc) between draconform's check and its write; "+
			"make it root's and writable by root alone (chown root, chmod go-w), or name an output folder that does not exist yet, under folders that are, and draconform makes it", path, why)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return refuse("its owner cannot be told")
	}
	if int(st.Uid) != 0 && int(st.Uid) != g.euid {
		return refuse(fmt.Sprintf("it belongs to uid %d", st.Uid))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil // its target is walked
	}
	if !fi.IsDir() {
		return refuse("it is not a folder")
	}
	writable := fi.Mode().Perm()&0o022 != 0
	if writable && (leaf || fi.Mode()&fs.ModeSticky == 0) {
		return refuse(fmt.Sprintf("others than root may write it (mode %s)", fi.Mode()))
	}
	return nil
}
