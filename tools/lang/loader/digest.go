package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
)

// Digest is a sha256 over the files of the spec trees, by path and content
// in walk (lexical) order, so two builds with the same suites and fixtures
// give the same digest and any edit changes it.
func Digest(trees ...fs.FS) (string, error) {
	h := sha256.New()
	for i, tree := range trees {
		err := fs.WalkDir(tree, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(tree, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d\x00%s\x00%d\x00", i, path, len(data))
			h.Write(data)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("digest of the specs: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
