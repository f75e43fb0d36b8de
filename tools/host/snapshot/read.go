package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/internal/mountinfo"
)

// kernelSettings reads each setting as name=value; one this kernel lacks
// is left out, so that one appearing (a module loaded) shows.
func kernelSettings(procSys string, names []string) []string {
	var out []string
	for _, name := range names {
		v, err := os.ReadFile(filepath.Join(procSys, strings.ReplaceAll(name, ".", "/")))
		if err != nil {
			continue
		}
		out = append(out, name+"="+strings.TrimSpace(string(v)))
	}
	return out
}

// mounts reads mountinfo as "mount point (type from source)": the mount
// and parent ids are left out, since the same mount made again is no
// change to the machine; a path mounted twice is two items.
func mounts(path string) ([]string, error) {
	entries, bad, err := mountinfo.Read(path)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s: unreadable line %q", path, bad[0])
	}
	var out []string
	for _, e := range entries {
		if e.Source == "" {
			return nil, fmt.Errorf("%s: a mount of %s without a source", path, e.MountPoint)
		}
		out = append(out, fmt.Sprintf("%s (%s from %s)", e.MountPoint, e.FSType, e.Source))
	}
	return out, nil
}

// tree lists the entries under root, depth levels down, as paths relative
// to it (only folders if dirsOnly). A root that does not exist has none.
func tree(root string, depth int, dirsOnly bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			// An entry removed while the walk reads it (a cgroup, a
			// temporary file) is simply not there.
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		level := strings.Count(rel, string(filepath.Separator)) + 1
		if !dirsOnly || d.IsDir() {
			out = append(out, rel)
		}
		if d.IsDir() && level >= depth {
			return fs.SkipDir
		}
		return nil
	})
	return out, err
}

// files lists each folder that exists, and its entries, as full paths.
// The folder itself is an item so that a run that makes it, even empty,
// or removes it differs from one that leaves it: a folder's entries alone
// are none both when it is missing and when it is empty.
func files(dirs []Dir) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, d := range dirs {
		switch _, err := os.Lstat(d.Path); {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", d.Path, err)
		}
		add(d.Path)
		rels, err := tree(d.Path, d.Depth, false)
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			add(filepath.Join(d.Path, r))
		}
	}
	return out, nil
}
