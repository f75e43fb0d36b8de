package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/lang/loader"
)

// Generate writes nothing, gives the two tables always, and the mutation
// record and page only for the built-in suites.
func TestGenerate(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := Sources{Bundle: b, SuiteDigest: "d", Dir: dir, Readme: filepath.Join(dir, "README.md"),
		GoldenDoc: filepath.Join(dir, "verdicts.md"), MutationDoc: filepath.Join(dir, "mutation.md")}
	gen, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Files) != 2 || !strings.Contains(string(gen.Files[filepath.Join(dir, "traceability.md")]), "|") {
		t.Fatalf("without records: files %v", keys(gen.Files))
	}
	if err := mutants.SaveResults(filepath.Join(dir, "mutation.json"), []mutants.Result{{Provider: mutants.Names()[0], Mistake: "forgets"}, {Provider: "m-gone", Mistake: "left the catalogue"}}); err != nil {
		t.Fatal(err)
	}
	page := "# m\n\n" + mutationBegin + "old\n" + mutationEnd
	if err := os.WriteFile(src.MutationDoc, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if gen, err = Generate(src); err != nil || len(gen.Files) != 3 || gen.Files[filepath.Join(dir, "mutation.json")] != nil {
		t.Fatalf("other suites: the record is left alone, the page regenerated: files %v, %v", keys(gen.Files), err)
	}
	src.BuiltIn = true
	if gen, err = Generate(src); err != nil || gen.Files[filepath.Join(dir, "mutation.json")] == nil || len(gen.Stale) == 0 {
		t.Fatalf("built-in suites: the record rewritten, stale: files %v, stale %v, %v", keys(gen.Files), gen.Stale, err)
	}
	if page := string(gen.Files[src.MutationDoc]); !strings.Contains(page, "`"+mutants.Names()[0]+"`") || strings.Contains(page, "m-gone") {
		t.Errorf("mutation page (a mutant of the catalogue kept, one that left it dropped): %s", page)
	}
	if _, err := os.Stat(filepath.Join(dir, "traceability.md")); err == nil {
		t.Error("Generate wrote a file")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, filepath.Base(k))
	}
	return out
}

func TestWriteMutationTable(t *testing.T) {
	page := filepath.Join(t.TempDir(), "mutation.md")
	if err := os.WriteFile(page, []byte("# m\n\n"+mutationBegin+"old\n"+mutationEnd+"after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteMutationTable(page, "new\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(page)
	if strings.Contains(string(got), "old") || !strings.Contains(string(got), "new\n") || !strings.HasSuffix(string(got), "after\n") {
		t.Errorf("page:\n%s", got)
	}
	if err := os.WriteFile(page, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteMutationTable(page, "new\n"); err == nil || !strings.Contains(err.Error(), page) {
		t.Errorf("a page without the table's markers: %v", err)
	}
}
