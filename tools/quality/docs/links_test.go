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
	files, err := MarkdownFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := CheckLinks(dir, files)
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
	problems, err := CheckLinks(dir, []string{filepath.Join(dir, "a.md")})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "#notes-2") {
		t.Errorf("problems: %v", problems)
	}
}

// A link to a folder beside the repository works only on the machine that
// has that folder (the README's first link once pointed at ../shared/, and a
// clone's make lint failed): it is refused even where the file exists, as is
// any link through another scheme than http(s) or to an absolute path.
func TestLinksThatLeaveTheRepositoryAreRefused(t *testing.T) {
	beside := writeFiles(t, map[string]string{
		"shared/KEP-6406.md": "# KEP\n",
		"repo/README.md": "# Top\n[KEP](../shared/KEP-6406.md) [up](https://github.com/kubernetes/enhancements/issues/6406)\n" +
			"[file](file:///etc/hostname) [abs](/etc/hostname) [mail](mailto:a@b.test)\n",
		"repo/drivers/README.md":   "[kep](../../shared/KEP-6406.md) [top](../README.md#top)\n",
		"repo/.cache/x/README.md":  "[not a page of ours](../../../elsewhere.md)\n",
		"repo/_output/r/README.md": "[nor this](../../../elsewhere.md)\n",
	})
	root := filepath.Join(beside, "repo")
	files, err := MarkdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("MarkdownFiles: want the README and drivers/README.md, got %v", files)
	}
	problems, err := CheckLinks(root, files)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(problems, "\n")
	for _, want := range []string{
		"README.md:2: ../shared/KEP-6406.md: leaves the repository",
		"README.md:3: file:///etc/hostname: leaves the repository",
		"README.md:3: /etc/hostname: leaves the repository",
		"README.md:3: mailto:a@b.test: leaves the repository",
		"drivers/README.md:1: ../../shared/KEP-6406.md: leaves the repository",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	if len(problems) != 5 {
		t.Errorf("want 5 problems, one line each, got:\n%s", joined)
	}
}
