package k8sbuild

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestEnsureBinariesReusesCache(t *testing.T) {
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
	// A module dir that does not exist proves no build is attempted.
	got, err := EnsureBinaries(context.Background(), BuildOptions{
		RepoRoot: "/nonexistent", ModuleDir: "/nonexistent", CacheDir: cache, Version: "v0.0.0",
	})
	if err != nil || got != bin {
		t.Fatalf("EnsureBinaries = %q, %v; want %q from cache", got, err, bin)
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
	if left, _ := filepath.Glob(filepath.Join(cache, "proto", "bin.tmp-*")); len(left) > 0 {
		t.Errorf("scratch build dirs left behind: %v", left)
	}
}
