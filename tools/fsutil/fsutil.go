// Package fsutil holds the file copy several packages need (the prototype's
// source tree, certification bundles, Sonobuoy results).
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
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
