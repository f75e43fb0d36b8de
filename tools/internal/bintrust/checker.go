package bintrust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Checker checks binaries before draconform runs them (Check). It
// remembers the digests it computed, by file identity, so that a provider
// that starts the same kube-apiserver in every cell hashes it once; nil
// is a Checker that remembers nothing.
type Checker struct {
	// EUID is the user the binaries would run as; nil: os.Geteuid. Tests
	// set it (and Owner) to check what root would be refused.
	EUID func() int
	// Owner is the uid owning the file at path; nil: what stat says.
	Owner func(path string, fi fs.FileInfo) int

	mu   sync.Mutex
	sums map[identity]string
}

// Check returns the file to execute for path (symbolic links resolved,
// so that the file checked is the file run), or an error naming it when
// draconform must not run it:
//   - run as root, when a user other than root could change it (rootOnly);
//   - in a folder of the build cache, when its digest differs from the
//     one the folder's manifest recorded when it was built or downloaded,
//     or the manifest does not list it;
//   - in a folder of the build cache made before draconform recorded
//     digests (no manifest): such a cache is not trusted on its mere
//     existence, and the error says how to record it or build it again.
//
// A binary outside the cache (a --bin of the user's, a test's script) has
// no digest to compare; it is only held to the rule for root.
func (c *Checker) Check(path string) (string, error) {
	real, err := resolve(path)
	if err != nil {
		return "", fmt.Errorf("refusing to run %s: %w", path, err)
	}
	refuse := func(err error) (string, error) {
		if real != path {
			return "", fmt.Errorf("refusing to run %s (%s): %w", path, real, err)
		}
		return "", fmt.Errorf("refusing to run %s: %w", path, err)
	}
	asRoot := c.euid() == 0
	if asRoot {
		if err := c.rootOnly(real); err != nil {
			return refuse(err)
		}
	}
	binDir := filepath.Dir(real)
	manifest := ManifestPath(binDir)
	entries, err := readManifest(manifest)
	switch {
	case errors.Is(err, fs.ErrNotExist) && isCacheFolder(binDir):
		return refuse(unrecorded(binDir))
	case errors.Is(err, fs.ErrNotExist):
		return real, nil
	case err != nil:
		return refuse(err)
	}
	if asRoot {
		if err := c.rootOnly(manifest); err != nil {
			return refuse(err)
		}
	}
	want, ok := entries[filepath.Base(real)]
	if !ok {
		return refuse(fmt.Errorf("%s does not list it: it was not put there by a build or download of draconform's; remove %s to build again", manifest, filepath.Dir(binDir)))
	}
	got, err := c.sum(real)
	if err != nil {
		return refuse(err)
	}
	if got != want {
		return refuse(fmt.Errorf("its SHA-256 is %s, but %s recorded %s when it was built or downloaded: it changed since; remove %s to build it again", got, manifest, want, filepath.Dir(binDir)))
	}
	return real, nil
}

// Check is Checker.Check by a Checker that remembers nothing.
func Check(path string) (string, error) {
	var c *Checker
	return c.Check(path)
}

// Command is Checker.Command by a Checker that remembers nothing.
func Command(ctx context.Context, path string, args ...string) (*exec.Cmd, error) {
	var c *Checker
	return c.Command(ctx, path, args...)
}

// Command is exec.CommandContext for a checked binary: it runs the file
// Check returned, under the name path (argv[0]), so that what reads
// command lines (ps, a later run's cleanup) sees the path it was given.
func (c *Checker) Command(ctx context.Context, path string, args ...string) (*exec.Cmd, error) {
	real, err := c.Check(path)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, real, args...)
	cmd.Args[0] = path
	return cmd, nil
}

// resolve is path absolute, with its symbolic links resolved. A cache
// folder's binary must be a file there, never a link out of it.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	if fi, err := os.Lstat(filepath.Join(dir, filepath.Base(abs))); err == nil && fi.Mode()&fs.ModeSymlink != 0 && isCacheFolder(dir) {
		return "", fmt.Errorf("it is a symbolic link in the build cache's %s, where only files a build put there belong", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", real)
	}
	return real, nil
}

// isCacheFolder says whether dir is the bin folder of a folder of the
// build cache (k8sbuild.Cache): its key folder has the lock or the recipe
// that every build leaves there.
func isCacheFolder(dir string) bool {
	if filepath.Base(dir) != "bin" {
		return false
	}
	for _, name := range []string{".lock", "recipe"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), name)); err == nil {
			return true
		}
	}
	return false
}

// unrecorded is the refusal of a cache folder without a manifest.
func unrecorded(binDir string) error {
	return fmt.Errorf("the build cache's %s was made before draconform recorded the digests of its binaries (no %s), so nothing says they are what was built; "+
		"if you trust them, record them: %s; or remove %s to build them again", binDir, ManifestPath(binDir), RecordHint(binDir), filepath.Dir(binDir))
}

func (c *Checker) euid() int {
	if c != nil && c.EUID != nil {
		return c.EUID()
	}
	return os.Geteuid()
}

// sum is the digest of the file at path, hashed once per identity.
func (c *Checker) sum(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := identityOf(fi)
	if c != nil {
		c.mu.Lock()
		sum, ok := c.sums[id]
		c.mu.Unlock()
		if ok {
			return sum, nil
		}
	}
	sum, read, err := digest(path)
	if err != nil {
		return "", err
	}
	// Remembered only when the file read is the one stat saw, unchanged.
	if c != nil && read == id && id != (identity{}) {
		c.mu.Lock()
		if c.sums == nil {
			c.sums = map[identity]string{}
		}
		c.sums[id] = sum
		c.mu.Unlock()
	}
	return sum, nil
}

// Recorded is Checker.Recorded by a Checker of the process's own user.
func Recorded(binDir string, names []string) error {
	var c *Checker
	return c.Recorded(binDir, names)
}

// Recorded checks, without reading them, what a cache folder reused
// because it is there must show before any of it runs (each run then goes
// through Check): a manifest that lists every one of names, and, run as
// root, that only root can change them or it.
func (c *Checker) Recorded(binDir string, names []string) error {
	real, err := filepath.EvalSymlinks(binDir)
	if err != nil {
		return err
	}
	manifest := ManifestPath(real)
	entries, err := readManifest(manifest)
	if errors.Is(err, fs.ErrNotExist) {
		return unrecorded(binDir)
	}
	if err != nil {
		return err
	}
	files := []string{manifest}
	for _, name := range names {
		if _, ok := entries[name]; !ok {
			return fmt.Errorf("%s does not list %s: remove %s to build again", manifest, name, filepath.Dir(binDir))
		}
		files = append(files, filepath.Join(real, name))
	}
	if c.euid() != 0 {
		return nil
	}
	for _, f := range files {
		if err := c.rootOnly(f); err != nil {
			return fmt.Errorf("refusing to run the binaries of %s as root: %w", binDir, err)
		}
	}
	return nil
}
