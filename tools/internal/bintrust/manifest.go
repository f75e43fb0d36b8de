// Package bintrust decides whether draconform may run a binary, often as
// root: one of the build cache must hash to the digest recorded when it was
// built or downloaded, and, run as root, it and every folder it is found
// through must be root's and writable by no one else.
package bintrust

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestPath is the digests file of the binaries of binDir: beside the
// folder (<key>/bin.sha256 for <key>/bin), so that nothing put in the
// folder passes for one of its binaries; in sha256sum's format, so that
// `sha256sum -c` run in the folder checks it by hand.
func ManifestPath(binDir string) string { return filepath.Clean(binDir) + ".sha256" }

// RecordHint is the command that records the digests of what binDir holds
// now, for a cache made before draconform recorded them; only for binaries
// one trusts, since it vouches for whatever is there.
func RecordHint(binDir string) string {
	return fmt.Sprintf("cd %s && sha256sum -- * > %s", binDir, ManifestPath(binDir))
}

// Record writes the digests of names in binDir into its manifest, at the
// end of a build or download that put them there. The entries of other
// files of the folder that are still there stay (a folder shared by two
// builds: the kind node image's crictl beside the embedded node's
// runtime); those of files gone are dropped.
func Record(binDir string, names []string) error {
	path := ManifestPath(binDir)
	entries, err := readManifest(path)
	if errors.Is(err, fs.ErrNotExist) {
		entries, err = map[string]string{}, nil
	}
	if err != nil {
		return err
	}
	for name := range entries {
		if _, err := os.Lstat(filepath.Join(binDir, name)); err != nil {
			delete(entries, name)
		}
	}
	for _, name := range names {
		sum, _, err := digest(filepath.Join(binDir, name))
		if err != nil {
			return fmt.Errorf("recording the digest of %s: %w", filepath.Join(binDir, name), err)
		}
		entries[name] = sum
	}
	return writeManifest(path, entries)
}

// writeManifest replaces path with entries, through a rename, so that a
// reader sees the old manifest or the new one, never half of one.
func writeManifest(path string, entries map[string]string) error {
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "%s  %s\n", entries[name], name)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readManifest reads a manifest: a line per file, its hex SHA-256, space,
// and its name (with sha256sum's "*" of binary mode, or a second space).
func readManifest(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 64 || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s line %d: not a SHA-256 digest and a file name: %q", path, n, sc.Text())
		}
		entries[name] = strings.ToLower(sum)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return entries, nil
}

// digest is the hex SHA-256 of the file at path, and the identity of the
// file it read, as it was once read.
func digest(path string) (string, identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", identity{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", identity{}, fmt.Errorf("reading %s: %w", path, err)
	}
	// After the read: a file changed while it was read has another
	// identity than the one seen before.
	fi, err := f.Stat()
	if err != nil {
		return "", identity{}, err
	}
	return hex.EncodeToString(h.Sum(nil)), identityOf(fi), nil
}
