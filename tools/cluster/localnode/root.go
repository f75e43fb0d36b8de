package localnode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// rootMadeFile marks a node state root that a node made: the last node to
// stop removes such a root, and leaves one the machine had before.
const rootMadeFile = "made-by-draconform"

// makeStateRoot creates root if it is missing, and marks it as made when
// this call created it: of nodes starting side by side, only the one whose
// mkdir succeeded marks it.
func makeStateRoot(root string) error {
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(root), err)
	}
	switch err := os.Mkdir(root, 0o755); {
	case errors.Is(err, os.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("creating %s: %w", root, err)
	}
	if err := os.WriteFile(filepath.Join(root, rootMadeFile), nil, 0o600); err != nil {
		return fmt.Errorf("marking %s as made by a node: %w", root, err)
	}
	return nil
}

// removeRootIfMade removes the state root once it holds nothing but its
// mark, and says so. A node that starts meanwhile keeps it: the mark goes
// back and the root stays for the last node of that run to remove.
func (k kernelState) removeRootIfMade() ([]string, error) {
	entries, err := os.ReadDir(k.root)
	if err != nil {
		return nil, err
	}
	if len(entries) != 1 || entries[0].Name() != rootMadeFile {
		return nil, nil
	}
	mark := filepath.Join(k.root, rootMadeFile)
	if err := os.Remove(mark); err != nil {
		return nil, err
	}
	switch err := syscall.Rmdir(k.root); {
	case err == nil:
		return []string{"removed " + k.root}, nil
	case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST):
		return nil, os.WriteFile(mark, nil, 0o600)
	default:
		return nil, fmt.Errorf("removing %s: %w", k.root, err)
	}
}

// sameDir says whether the open folder f is still the one at path: a
// state root removed by the last node while this process waited for its
// lock is not.
func sameDir(f *os.File, path string) bool {
	open, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(open, now)
}
