package usecase

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/quality/docs"
)

// DefaultProviders is what run tests without --provider, and so what make
// conformance prints a matrix of.
const DefaultProviders = "local,prototype"

// DocsRequest writes (or, with Check, verifies) the documents generated
// from the specs and the records into Dir: the traceability table, the
// interpretation register, the README's sample matrix, the golden summary
// of GoldenDoc and the mutation table of MutationDoc; and checks every link
// of the repository's pages (the README's folder).
type DocsRequest struct {
	Specs                          Specs
	Dir, Readme, GoldenDoc, MutDoc string
	Check                          bool
}

// Docs writes or checks them; what is stale or broken goes to s.Err.
func Docs(r DocsRequest, s Streams) error {
	b, code := r.Specs.loadOr(s)
	if b == nil {
		return said(code)
	}
	if r.Readme == "" {
		r.Readme = filepath.Join(r.Dir, "..", "README.md")
	}
	if r.GoldenDoc == "" {
		r.GoldenDoc = filepath.Join(r.Dir, "verdicts.md")
	}
	if r.MutDoc == "" {
		r.MutDoc = filepath.Join(r.Dir, "mutation.md")
	}
	gen, err := docs.Generate(docs.Sources{Bundle: b, BuiltIn: r.Specs.BuiltIn(), SuiteDigest: suiteDigest(),
		Dir: r.Dir, Readme: r.Readme, GoldenDoc: r.GoldenDoc, MutationDoc: r.MutDoc, MatrixTargets: splitList(DefaultProviders)})
	if err != nil {
		return err
	}
	stale, err := writeOrCheck(gen.Files, r.Check, "draconform docs (or make docs)", s)
	if err != nil {
		return err
	}
	if r.Check && len(gen.Stale) > 0 {
		var lines []string
		for _, o := range gen.Stale {
			lines = append(lines, o.String())
		}
		fmt.Fprintf(s.Err, "draconform docs: %s is stale, so its table says nothing of these suites; rerun make mutation MUTANTS=%s\n  %s\n",
			filepath.Join(r.Dir, "mutation.json"), strings.Join(docs.StaleNames(gen.Stale), ","), strings.Join(lines, "\n  "))
		stale = true
	}
	if uncovered(gen, r.Dir, s) {
		stale = true
	}
	broken, err := docs.BrokenLinks(filepath.Dir(r.Readme))
	if err != nil {
		return err
	}
	if len(broken) > 0 {
		fmt.Fprintf(s.Err, "draconform docs: %d broken links:\n  %s\n", len(broken), strings.Join(broken, "\n  "))
		stale = true
	}
	if stale {
		return said(1)
	}
	return nil
}

// uncovered says on s.Err which shipped cases the golden table has no
// outcome of for an implementation it records at their cell, if any.
func uncovered(gen docs.Generated, dir string, s Streams) bool {
	if len(gen.Uncovered) == 0 {
		return false
	}
	fmt.Fprintf(s.Err, "draconform docs: %s has no outcome of %s at a cell where it records that implementation; rerun its run there with --update-golden (kind: make gate-matrix; kind-kep: make gate-matrix-kep), or add the outcome the provider gives without running (skipped: the provider cannot run this cell)\n  %s\n",
		filepath.Join(dir, "golden-outcomes.json"), textline.Count(len(gen.Uncovered), "case"), strings.Join(gen.Uncovered, "\n  "))
	return true
}
