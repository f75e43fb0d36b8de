package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// walkModuleGo calls fn with every Go file of the module under root, its
// path relative to root as well: not the pinned modules (a folder with a
// go.mod of its own), caches, outputs or test data, which the module's own
// rules do not govern.
func walkModuleGo(root string, fn func(path, rel string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // a pinned module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return fn(path, rel)
	})
}
