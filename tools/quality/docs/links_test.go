package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckLinksFindsMissingFilesAndAnchors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"README.md": "# Top\n\n[ok](docs/a.md#what-a-run-lets-you-claim) [self](#top) [web](https://x.test/#nope)\n" +
			"[gone](docs/b.md) [moved](docs/a.md#running-against-a-cluster)\n",
		"docs/a.md": "# What a run lets you claim?\n\n```sh\n# not a heading\n```\n[back](../README.md#not-a-heading)\n",
	})
	files, err := MarkdownFiles(filepath.Join(dir, "README.md"), filepath.Join(dir, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := CheckLinks(files)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(problems, "\n")
	for _, want := range []string{"README.md:4: docs/b.md: no such file", "README.md:4: docs/a.md#running-against-a-cluster:", "a.md:6: ../README.md#not-a-heading:"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	if len(problems) != 3 {
		t.Errorf("want 3 problems, got:\n%s", joined)
	}
}

func TestAnchorIsGitHubs(t *testing.T) {
	for title, want := range map[string]string{
		"Verdicts: what a run lets you claim":          "verdicts-what-a-run-lets-you-claim",
		"Does the suite catch broken implementations?": "does-the-suite-catch-broken-implementations",
		"Pods that really run: a kubelet node":         "pods-that-really-run-a-kubelet-node",
		"`make conformance` and make_test":             "make-conformance-and-make_test",
	} {
		if got := Anchor(title); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestDuplicateHeadingsGetNumberedAnchors(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.md": "# Notes\n## Notes\n[x](#notes-1) [y](#notes-2)\n"})
	problems, err := CheckLinks([]string{filepath.Join(dir, "a.md")})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "#notes-2") {
		t.Errorf("problems: %v", problems)
	}
}
