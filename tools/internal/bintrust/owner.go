package bintrust

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// rootOnly returns why a user other than root could change the file at
// path (absolute, no symbolic links in it), which root is about to run, or
// nil when none could. The file must be root's and writable by no group or
// other user; so must every folder above it, up to /, since whoever may
// write a folder, or owns it and so may chmod it, can rename what is in it
// and put a file of their own in its place. A folder with the sticky bit
// (/tmp) may be writable by all: there only an entry's owner can move it.
func (c *Checker) rootOnly(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if err := c.ownedByRoot(path, fi); err != nil {
		return err
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or by others (mode %04o): chmod go-w %s", path, fi.Mode().Perm(), path)
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if err := c.ownedByRoot(dir, fi); err != nil {
			return err
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("its folder %s is writable by its group or by others (mode %04o), who could replace it: chmod go-w %s", dir, fi.Mode().Perm(), dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

func (c *Checker) ownedByRoot(path string, fi fs.FileInfo) error {
	owner := ownerOf
	if c != nil && c.Owner != nil {
		owner = c.Owner
	}
	if uid := owner(path, fi); uid != 0 {
		return fmt.Errorf("%s is owned by uid %d, not root: that user could change what root runs; keep draconform's checkout and cache in folders only root can change (chown root)", path, uid)
	}
	return nil
}
