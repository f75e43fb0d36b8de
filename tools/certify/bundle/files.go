package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// SigFile is the SSH signature of SHA256SUMS a signed bundle carries. It
// signs the sums, which name every other file with its sha256, so it signs
// them all.
const SigFile = SumsFile + ".sig"

// Size caps. A bundle is read by a reviewer's machine on a vendor's word:
// a name in SHA256SUMS or a file made to be huge must not make it read
// without end (/dev/zero) or past its memory. A whole run's log is some
// megabytes; the caps leave room for a hundredfold.
const (
	maxFileSize = 256 << 20
	maxSumsSize = 64 << 10
)

// known says whether name is a file a bundle holds: the files SHA256SUMS
// covers, the sums, and their signature. No other name (a path, a
// subfolder, a dot-file) is ever opened.
func known(name string) bool {
	return slices.Contains(Files, name) || slices.Contains(PartFiles, name) || name == MergedFile || name == SumsFile || name == SigFile
}

// readFile reads the bundle's file name, refusing a name a bundle does not
// hold, anything but a regular file (a symlink is not followed: the open
// fails on it), and a file over its cap.
func readFile(dir, name string) ([]byte, error) {
	if !known(name) {
		return nil, fmt.Errorf("%q is not a file of a bundle (a bundle holds only %v, %s and %s)", name, Files, SumsFile, SigFile)
	}
	limit := int64(maxFileSize)
	if name == SumsFile || name == SigFile {
		limit = maxSumsSize
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: a bundle holds regular files only", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): a bundle holds regular files only", name, info.Mode().Type())
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the cap of %d for a bundle's file", name, info.Size(), limit)
	}
	// The size read at open is a promise the file may break while read.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew over the cap of %d bytes while read", name, limit)
	}
	return data, nil
}
