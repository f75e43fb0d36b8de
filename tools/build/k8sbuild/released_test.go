package k8sbuild

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/draconform/draconform/tools/internal/bintrust"
)

// Binaries made by today's recipe are reused; binaries of an older cache
// (no recipe recorded) or of another recipe are built again.
func TestEnsureBinariesReusesCache(t *testing.T) {
	for _, tc := range []struct {
		recipe string // "-" writes none
		reuse  bool
	}{
		{Recipe(nil, nil), true},
		{"-", false},
		{"CGO_ENABLED=1 -trimpath", false},
	} {
		cache := t.TempDir()
		bin := filepath.Join(cache, "v0.0.0", "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, pkg := range DefaultPackages() {
			if err := os.WriteFile(filepath.Join(bin, BinaryName(pkg)), []byte("#!/bin/true\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if tc.recipe != "-" {
			if err := os.WriteFile(filepath.Join(cache, "v0.0.0", "recipe"), []byte(tc.recipe), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var names []string
		for _, pkg := range DefaultPackages() {
			names = append(names, BinaryName(pkg))
		}
		if err := bintrust.Record(bin, names); err != nil {
			t.Fatal(err)
		}
		// A module dir that does not exist: a build is attempted exactly
		// when it fails.
		got, err := EnsureBinaries(context.Background(), BuildOptions{
			RepoRoot: "/nonexistent", ModuleDir: "/nonexistent", CacheDir: cache, Version: "v0.0.0",
		})
		if tc.reuse && (err != nil || got != bin) {
			t.Errorf("recipe %q: EnsureBinaries = %q, %v; want %q from cache", tc.recipe, got, err, bin)
		}
		if !tc.reuse && (err == nil || !strings.Contains(err.Error(), "/nonexistent")) {
			t.Errorf("recipe %q: EnsureBinaries = %q, %v; want a build of the binaries made otherwise", tc.recipe, got, err)
		}
	}
}

// Two concurrent callers must build once and both get the binaries.
func TestEnsureBinariesBuildsOnceUnderLock(t *testing.T) {
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/tiny\n\ngo 1.22\n",
		"hello/main.go": "package main\n\nfunc main() { println(\"hello\") }\n",
		"bye/main.go":   "package main\n\nfunc main() { println(\"bye\") }\n",
	}
	for name, body := range files {
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	var (
		wg   sync.WaitGroup
		logs [2]bytes.Buffer
		dirs [2]string
		errs [2]error
	)
	for i := range 2 {
		wg.Go(func() {
			dirs[i], errs[i] = EnsureBinaries(context.Background(), BuildOptions{
				RepoRoot: mod, ModuleDir: mod, CacheDir: cache, Version: "proto",
				Packages: []string{"./hello", "./bye"}, Log: &logs[i],
			})
		})
	}
	wg.Wait()
	builds := 0
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v\n%s", i, errs[i], logs[i].String())
		}
		if want := filepath.Join(cache, "proto", "bin"); dirs[i] != want {
			t.Errorf("caller %d got %s, want %s", i, dirs[i], want)
		}
		builds += strings.Count(logs[i].String(), "building Kubernetes proto binaries")
	}
	if builds != 1 {
		t.Errorf("built %d times, want once; logs:\n%s\n---\n%s", builds, logs[0].String(), logs[1].String())
	}
	for _, name := range []string{"hello", "bye"} {
		if fi, err := os.Stat(filepath.Join(cache, "proto", "bin", name)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("binary %s not installed: %v", name, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(cache, "proto", "recipe")); string(got) != Recipe(nil, nil) {
		t.Errorf("recorded recipe %q, want %q: the next run would build again", got, Recipe(nil, nil))
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "proto", "bin.tmp-*")); len(left) > 0 {
		t.Errorf("scratch build dirs left behind: %v", left)
	}
}
