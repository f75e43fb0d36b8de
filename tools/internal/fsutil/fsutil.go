// Package fsutil holds the file copy and link several packages need (the
// prototype's source tree, certification bundles, Sonobuoy results, the
// node's tools and images), and the output folders they are written in.
package fsutil

import (
	"io"
	"io/fs"
	"os"
)

// CopyFile copies from to to, created or truncated with perm.
func CopyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	return copyInto(out, in)
}

// copyInto copies in to out and closes out, whose close error counts.
func copyInto(out *os.File, in io.Reader) error {
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// LinkOrCopy makes to a hard link to from, or a copy (mode 0755: every
// caller links programs or archives of them) where the two are on different
// file systems. A file already at to is removed first, never written
// through: it may be a link to another file.
func LinkOrCopy(from, to string) error {
	_ = os.Remove(to)
	if err := os.Link(from, to); err == nil {
		return nil
	}
	return CopyFile(from, to, 0o755)
}
