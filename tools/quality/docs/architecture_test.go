package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path relative to root → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for path, text := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A small module: two packages of its own, a test file importing what the
// code does not, a nested module and testdata that are not the module's.
func mapModule(t *testing.T) string {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":                "module example.com/m\n\ngo 1.26\n",
		"a/a.go":                "// Package a holds the first thing: and more.\npackage a\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/b\"\n\t\"example.com/m/x/util\"\n\t\"example.com/m/y/util\"\n\t\"example.com/m/x/deep/z\"\n)\n\nvar _ = fmt.Sprint(b.X)\n",
		"x/util/u.go":           "// Package util reads suites, cells and fixtures from YAML, strictly.\npackage util\n",
		"y/util/u.go":           "package util\n",
		"x/deep/z/z.go":         "// Package z reads the lines of a long text from a file (a log) and says what.\npackage z\n",
		"a/a_test.go":           "package a\n\nimport _ \"example.com/m/c\"\n",
		"b/b.go":                "// Package b holds the second (one, or two), a third and a fourth, and no more.\npackage b\n\nconst X = 1\n",
		"b/linux_arm64.go":      "package b\n\nimport _ \"example.com/m/c\"\n",
		"nested/go.mod":         "module example.com/nested\n",
		"nested/n.go":           "package n\n",
		"a/testdata/x/x.go":     "package x\n",
		"docs/architecture.md":  "# A\n\nprose before\n\n" + mapBegin + "old table\n" + mapEnd + "\nprose after\n",
		"README.md":             "# m\n",
		"_output/o/o.go":        "package o\n",
		".cache/k/k.go":         "package k\n",
		"a/internal/i/doc.go":   "package i\n",
		"t/t_test.go":           "package t\n",
		"a/internal/i/i_x86.go": "//go:build ignore\n\npackage i\n\nimport _ \"example.com/m/b\"\n",
	})
	return root
}

func TestModulePackagesFollowTheCode(t *testing.T) {
	root := mapModule(t)
	pkgs, err := ModulePackages(root)
	if err != nil {
		t.Fatal(err)
	}
	got := PackageMap(pkgs)
	want := "| package | holds |\n|---|---|\n" +
		"| `a` | holds the first thing |\n" +
		"| `a/internal/i` | (no package comment) |\n" +
		"| `b` | holds the second (one, or two), a third and a fourth |\n" +
		"| `x/deep/z` | reads the lines of a long text from a file |\n" +
		"| `x/util` | reads suites, cells and fixtures from YAML |\n" +
		"| `y/util` | (no package comment) |\n" +
		"\n6 packages.\n"
	if got != want {
		t.Errorf("map:\n%s\nwant:\n%s", got, want)
	}
}

// The check fails on a stale map: Generate gives the page with the map of
// the code, so a page whose table was written before a package came or
// its comment changed differs from it, and the prose outside the markers
// stays as written.
func TestAStalePackageMapFailsTheCheck(t *testing.T) {
	root := mapModule(t)
	dir := filepath.Join(root, "docs")
	page := filepath.Join(dir, "architecture.md")
	paths := map[string][]byte{}
	if err := AddArchitecture(paths, root, dir); err != nil {
		t.Fatal(err)
	}
	current := string(paths[page])
	if !strings.Contains(current, "prose before") || !strings.Contains(current, "\nprose after\n") || strings.Contains(current, "old table") {
		t.Fatalf("page:\n%s", current)
	}
	if err := os.WriteFile(page, []byte(current), 0o644); err != nil {
		t.Fatal(err)
	}
	// The code changes: b says otherwise what it holds, and c is new.
	writeTree(t, root, map[string]string{
		"b/b.go": "// Package b holds the fifth.\npackage b\n",
		"c/c.go": "// Package c holds what came later.\npackage c\n",
	})
	paths = map[string][]byte{}
	if err := AddArchitecture(paths, root, dir); err != nil {
		t.Fatal(err)
	}
	if string(paths[page]) == current {
		t.Fatal("the page written before b's comment changed and c came still equals what the code gives: a stale map would pass docs --check")
	}
	for _, want := range []string{"| `b` | holds the fifth |\n", "| `c` | holds what came later |\n"} {
		if !strings.Contains(string(paths[page]), want) {
			t.Errorf("regenerated page lacks %q:\n%s", want, paths[page])
		}
	}
}

func TestPackageMapNeedsItsMarkers(t *testing.T) {
	root := mapModule(t)
	dir := filepath.Join(root, "docs")
	writeTree(t, root, map[string]string{"docs/architecture.md": "# A\n\nno markers\n"})
	if err := AddArchitecture(map[string][]byte{}, root, dir); err == nil || !strings.Contains(err.Error(), "architecture.md") {
		t.Errorf("a page without the map's markers: %v", err)
	}
	paths := map[string][]byte{}
	if err := AddArchitecture(paths, root, t.TempDir()); err != nil || len(paths) != 0 {
		t.Errorf("a folder without the page is left alone: %v, %v", paths, err)
	}
}
