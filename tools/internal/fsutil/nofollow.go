package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// WriteNew writes data to a new file at path, never through what is there:
// an old regular file is removed first, and anything else (a symlink
// planted to make draconform, often run as root, overwrite /etc/shadow; a
// folder; a device) is refused, naming it. The file is created O_EXCL and
// O_NOFOLLOW, so a link planted after the removal fails the write rather
// than redirecting it.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	f, err := CreateNew(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CreateNew is WriteNew's file, open for writing.
func CreateNew(path string, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("refusing to write %s: it is a %s, not a file draconform wrote (it may point elsewhere); remove it", path, kind(fi.Mode()))
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return nil, fmt.Errorf("creating %s afresh: %w", path, err)
	}
	return f, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

// CopyNew copies from to a new file at to, as WriteNew writes one.
func CopyNew(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := CreateNew(to, perm)
	if err != nil {
		return err
	}
	return copyInto(out, in)
}
