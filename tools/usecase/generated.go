package usecase

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// writeOrCheck writes each generated file (path → content) or, with check,
// writes nothing and names each file that differs from what it would write.
// Both generating verbs share it so that "stale" means the same thing, and
// reads the same way, for the docs and for the kind configs. hint is the
// command that brings a stale file up to date.
func writeOrCheck(files map[string][]byte, check bool, hint string, s Streams) (stale bool, err error) {
	for _, path := range slices.Sorted(maps.Keys(files)) {
		if check {
			if cur, err := os.ReadFile(path); err != nil || !bytes.Equal(cur, files[path]) {
				fmt.Fprintf(s.Err, "%s is stale: run %s\n", path, hint)
				stale = true
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(path, files[path], 0o644); err != nil {
			return false, err
		}
		fmt.Fprintln(s.Out, "wrote", path)
	}
	return stale, nil
}
