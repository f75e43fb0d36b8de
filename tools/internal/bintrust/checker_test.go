package bintrust

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cacheFolder makes a build cache folder as k8sbuild.Cache leaves it: a
// key folder with its lock, bin/ with names, and (record) their digests.
func cacheFolder(t *testing.T, record bool, names ...string) (binDir string) {
	t.Helper()
	key := filepath.Join(t.TempDir(), "v1.37.2")
	binDir = filepath.Join(key, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(key, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(binDir, n), []byte("#!/bin/sh\necho "+n+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if record {
		if err := Record(binDir, names); err != nil {
			t.Fatal(err)
		}
	}
	return binDir
}

// appendByte changes a file as an attacker might: same name, same mode.
func appendByte(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{'\n'}); err != nil {
		t.Fatal(err)
	}
}

// notRoot is a Checker for a process of uid 1000, whatever runs the test.
func notRoot() *Checker { return &Checker{EUID: func() int { return 1000 }} }

func TestTamperedCachedBinaryIsRefused(t *testing.T) {
	bin := cacheFolder(t, true, "kubelet", "etcd")
	kubelet := filepath.Join(bin, "kubelet")
	c := notRoot()
	real, err := c.Check(kubelet)
	if err != nil || real != kubelet {
		t.Fatalf("Check of the binary as built = %q, %v; want %q, nil", real, err, kubelet)
	}
	// The same Checker, which remembers the digest it computed: a change
	// must still be seen.
	appendByte(t, kubelet)
	_, err = c.Check(kubelet)
	if err == nil || !strings.Contains(err.Error(), kubelet) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("Check of a kubelet changed after its build = %v; want a refusal naming %s and its digest", err, kubelet)
	}
	if _, err := notRoot().Check(filepath.Join(bin, "etcd")); err != nil {
		t.Errorf("the untouched etcd beside it: %v", err)
	}
}

func TestCacheBinaryNotInItsManifestIsRefused(t *testing.T) {
	bin := cacheFolder(t, true, "kubelet")
	extra := filepath.Join(bin, "kube-proxy")
	if err := os.WriteFile(extra, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := notRoot().Check(extra); err == nil || !strings.Contains(err.Error(), "does not list it") {
		t.Errorf("Check of a file a build did not put there = %v; want a refusal", err)
	}
}

// A cache made before digests were recorded is refused with the command
// that records them; once recorded, it runs.
func TestCacheWithoutManifestIsRefusedUntilRecorded(t *testing.T) {
	bin := cacheFolder(t, false, "kubelet")
	kubelet := filepath.Join(bin, "kubelet")
	_, err := notRoot().Check(kubelet)
	if err == nil || !strings.Contains(err.Error(), RecordHint(bin)) || !strings.Contains(err.Error(), kubelet) {
		t.Fatalf("Check in a cache without a manifest = %v; want a refusal naming %s and saying: %s", err, kubelet, RecordHint(bin))
	}
	if err := notRoot().Recorded(bin, []string{"kubelet"}); err == nil || !strings.Contains(err.Error(), RecordHint(bin)) {
		t.Errorf("Recorded of a cache without a manifest = %v; want the same refusal", err)
	}
	if err := Record(bin, []string{"kubelet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := notRoot().Check(kubelet); err != nil {
		t.Errorf("Check once recorded: %v", err)
	}
	data, _ := os.ReadFile(ManifestPath(bin))
	if !strings.HasSuffix(string(data), "  kubelet\n") || len(data) != 64+2+len("kubelet")+1 {
		t.Errorf("the manifest is not in sha256sum's format: %q", data)
	}
}

// A binary outside the cache (a --bin of the user's) has no digest to
// check; it is held to the rule for root only.
func TestBinaryOutsideTheCacheHasNoDigestToCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kube-scheduler")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := notRoot().Check(path); err != nil {
		t.Errorf("Check of a binary outside the cache: %v", err)
	}
}

func TestSymlinkInTheCacheIsRefused(t *testing.T) {
	bin := cacheFolder(t, true, "kubelet")
	elsewhere := filepath.Join(t.TempDir(), "kubelet")
	if err := os.WriteFile(elsewhere, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kubelet := filepath.Join(bin, "kubelet")
	if err := os.Remove(kubelet); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, kubelet); err != nil {
		t.Fatal(err)
	}
	if _, err := notRoot().Check(kubelet); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Check of a cache binary replaced by a link out of the cache = %v; want a refusal", err)
	}
}

// A link to a cache binary (the embedded node's folder links the
// runtime's) is checked as the file it points to, which is the one run.
func TestLinkToACacheBinaryIsCheckedAsItsTarget(t *testing.T) {
	bin := cacheFolder(t, true, "containerd")
	link := filepath.Join(t.TempDir(), "containerd")
	if err := os.Symlink(filepath.Join(bin, "containerd"), link); err != nil {
		t.Fatal(err)
	}
	if real, err := notRoot().Check(link); err != nil || real != filepath.Join(bin, "containerd") {
		t.Errorf("Check(link) = %q, %v; want the cache's file", real, err)
	}
	appendByte(t, filepath.Join(bin, "containerd"))
	if _, err := notRoot().Check(link); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Check(link) to a changed binary = %v; want a refusal", err)
	}
}

// asRoot is a Checker for a root process that sees owner as the owner of
// the files for which it returns true, and root of the others.
func asRoot(owner int, of func(path string) bool) *Checker {
	return &Checker{EUID: func() int { return 0 }, Owner: func(path string, _ fs.FileInfo) int {
		if of(path) {
			return owner
		}
		return 0
	}}
}

func TestRootRefusesABinaryItDoesNotOwn(t *testing.T) {
	bin := cacheFolder(t, true, "kubelet")
	kubelet := filepath.Join(bin, "kubelet")
	byUser := asRoot(1000, func(p string) bool { return p == kubelet })
	_, err := byUser.Check(kubelet)
	if err == nil || !strings.Contains(err.Error(), kubelet) || !strings.Contains(err.Error(), "uid 1000") {
		t.Fatalf("Check as root of a kubelet owned by uid 1000 = %v; want a refusal naming it and its owner", err)
	}
	if err := byUser.Recorded(bin, []string{"kubelet"}); err == nil || !strings.Contains(err.Error(), "uid 1000") {
		t.Errorf("Recorded as root = %v; want the same refusal", err)
	}
	if _, err := asRoot(1000, func(string) bool { return false }).Check(kubelet); err != nil {
		t.Errorf("Check as root of a kubelet root owns: %v", err)
	}
	// Not root: a user's own file is no one else's to worry about.
	if _, err := (&Checker{EUID: func() int { return 1000 }, Owner: byUser.Owner}).Check(kubelet); err != nil {
		t.Errorf("Check as uid 1000 of its own kubelet: %v", err)
	}
}

func TestRootRefusesWhatAnotherUserCouldReplace(t *testing.T) {
	bin := cacheFolder(t, true, "kubelet")
	kubelet := filepath.Join(bin, "kubelet")
	key := filepath.Dir(bin)
	root := asRoot(0, func(string) bool { return false })
	for _, tc := range []struct {
		name  string
		setup func() func()
		want  string
	}{
		{"a folder above it owned by a user", func() func() { return func() {} }, "owned by uid 1000"},
		{"the binary writable by its group", chmod(t, kubelet, 0o775), "writable by its group or by others"},
		{"its folder writable by all", chmod(t, bin, 0o777), "writable by its group or by others"},
		{"the manifest writable by all", chmod(t, ManifestPath(bin), 0o666), "writable by its group or by others"},
	} {
		c := root
		if tc.name == "a folder above it owned by a user" {
			c = asRoot(1000, func(p string) bool { return p == key })
		}
		restore := tc.setup()
		_, err := c.Check(kubelet)
		restore()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), kubelet) {
			t.Errorf("%s: Check as root = %v; want a refusal naming %s: %s", tc.name, err, kubelet, tc.want)
		}
	}
	// A sticky folder writable by all (/tmp) lets no one else move root's
	// files out of it.
	restore := chmod(t, key, fs.ModeSticky|0o777)()
	defer restore()
	if _, err := root.Check(kubelet); err != nil {
		t.Errorf("Check as root below a sticky folder: %v", err)
	}
}

// chmod returns a setup that sets path's mode and returns what restores it.
func chmod(t *testing.T, path string, mode fs.FileMode) func() func() {
	return func() func() {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return func() { os.Chmod(path, fi.Mode()) }
	}
}

// Record keeps the digests of the folder's other binaries that are still
// there, and drops those of files gone.
func TestRecordKeepsTheOthersDigests(t *testing.T) {
	bin := cacheFolder(t, true, "containerd", "crictl", "gone")
	if err := os.Remove(filepath.Join(bin, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := Record(bin, []string{"containerd"}); err != nil {
		t.Fatal(err)
	}
	entries, err := readManifest(ManifestPath(bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := entries["crictl"]; !ok || len(entries) != 2 {
		t.Errorf("manifest after recording containerd alone: %v; want containerd and crictl", entries)
	}
}
