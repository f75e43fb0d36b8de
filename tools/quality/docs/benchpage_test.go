package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/bench.md is rendered from bench.json alone: a page whose figure was
// edited by hand differs from what docs --check expects, and a folder
// without the record leaves the page alone.
func TestBenchPageIsRenderedFromItsRecord(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"bench.json": string(data)})
	paths := map[string][]byte{}
	if err := AddBench(paths, dir); err != nil {
		t.Fatal(err)
	}
	page := string(paths[filepath.Join(dir, "bench.md")])
	if !strings.HasPrefix(page, "# draconform benchmarks") || !strings.Contains(page, "| kube-apiserver |") {
		t.Fatalf("page:\n%s", page)
	}
	edited := strings.Replace(page, "kube-apiserver", "kube-apiserver (fast)", 1)
	if edited == page || edited == string(paths[filepath.Join(dir, "bench.md")]) {
		t.Fatal("a hand-edited page equals the rendered one")
	}
	writeTree(t, dir, map[string]string{"bench.json": "{not json"})
	if err := AddBench(map[string][]byte{}, dir); err == nil {
		t.Error("a broken bench.json renders a page")
	}
	paths = map[string][]byte{}
	if err := AddBench(paths, t.TempDir()); err != nil || len(paths) != 0 {
		t.Errorf("no record: %v, %v", paths, err)
	}
}
