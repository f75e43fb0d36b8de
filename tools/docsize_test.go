package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// docsBudget is what docs/ may hold, in characters of Markdown: pages for
// readers, kept short enough to read; dated records are JSON beside them
// and do not count.
const docsBudget = 150_000

// TestDocsStayWithinTheirBudget: the pages grew into a lab notebook once
// (309k characters); a page that pushes them past the budget must make
// room elsewhere.
func TestDocsStayWithinTheirBudget(t *testing.T) {
	total := 0
	root := filepath.Join("..", "docs")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		total += utf8.RuneCount(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > docsBudget {
		t.Errorf("docs/ holds %d characters of Markdown, over its budget of %d: make room before adding", total, docsBudget)
	}
	t.Logf("docs/ holds %d characters of Markdown (budget %d)", total, docsBudget)
}
