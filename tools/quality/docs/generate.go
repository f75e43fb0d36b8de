package docs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
)

// Sources are what the generated documents are made from, and where they
// go: `draconform docs` fills them from its flags.
type Sources struct {
	// Bundle is the loaded suites; BuiltIn says they are the shipped ones
	// (no --suites or --fixtures), whose SuiteDigest the mutation record
	// speaks of.
	Bundle      *loader.Bundle
	BuiltIn     bool
	SuiteDigest string
	// Dir holds traceability.md, register.md, mutation.json and
	// golden-outcomes.json; the pages hold generated sections.
	Dir, Readme, GoldenDoc, MutationDoc string
	// MatrixTargets are the implementations the README's matrix shows.
	MatrixTargets []string
}

// Generated is every file the documents' sources give (path → content),
// and the mutants whose recorded results no longer speak of the suites.
type Generated struct {
	Files map[string][]byte
	Stale []Stale
	// Uncovered: the shipped cases the golden table has no outcome of for
	// an implementation it records at their cell (GoldenUncovered).
	Uncovered []string
}

// Generate computes every generated document without writing any, so that
// writing and checking (`docs --check`) compare the same bytes: the
// traceability table, the register, the mutation record brought up to the
// suites' digests, and the pages' generated sections (docs/figures.md's
// table among them, from docs/measurements.json and docs/bench.json, and
// docs/architecture.md's package map, from the module's code).
func Generate(src Sources) (Generated, error) {
	b, dir := src.Bundle, src.Dir
	out := Generated{Files: map[string][]byte{
		filepath.Join(dir, "traceability.md"): []byte(Traceability(b)),
		filepath.Join(dir, "register.md"):     []byte(Register(b)),
	}}
	results, err := mutants.LoadResults(filepath.Join(dir, "mutation.json"))
	if err != nil {
		return Generated{}, err
	}
	// A mutant that left the catalogue (found a legal reading, or merged
	// into a variant) leaves the record of the built-in suites with it.
	if src.BuiltIn {
		results = mutants.MergeResults(nil, results, mutants.Names())
	}
	// The mutation table speaks of the built-in suites: a kill resting
	// only on cases that changed since would claim what these suites
	// may not show.
	if results != nil && src.BuiltIn {
		digests, err := plan.Digests(b)
		if err != nil {
			return Generated{}, err
		}
		now := Suites{Digest: src.SuiteDigest, Cases: digests, Blocking: plan.Blocking(b)}
		RecordDigests(results, now)
		DropChanged(results, now)
		data, err := mutants.EncodeResults(results)
		if err != nil {
			return Generated{}, err
		}
		out.Files[filepath.Join(dir, "mutation.json")] = data
		out.Stale = StaleMutations(results, mutants.Names(), now)
	}
	g, err := goldenIfAny(filepath.Join(dir, "golden-outcomes.json"))
	if err != nil {
		return Generated{}, err
	}
	if err := addGenerated(out.Files, src, results, g); err != nil {
		return Generated{}, err
	}
	if err := addRecordPages(out.Files, src); err != nil {
		return Generated{}, err
	}
	if src.BuiltIn && g != nil {
		var ids []string
		for _, pc := range plan.Expand(b, plan.Filter{}) {
			ids = append(ids, pc.ID)
		}
		out.Uncovered = GoldenUncovered(g, ids)
	}
	return out, nil
}

// addRecordPages adds the pages rendered from the records and the code:
// figures, bench, what ran for real and the package map.
func addRecordPages(files map[string][]byte, src Sources) error {
	dir := src.Dir
	for _, add := range []func() error{
		func() error { return AddFigures(files, dir) },
		func() error { return AddBench(files, dir) },
		func() error { return AddRanForReal(files, dir) },
		// The module is the README's folder: the package map follows its code.
		func() error { return AddArchitecture(files, filepath.Dir(src.Readme), dir) },
	} {
		if err := add(); err != nil {
			return err
		}
	}
	return nil
}

// goldenIfAny is the golden table at path, read once for every page and
// check made from it, or nil where there is none.
func goldenIfAny(path string) (report.Golden, error) {
	g, err := report.LoadGolden(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return g, err
}

// BrokenLinks is every link of the repository's pages (root is the
// README's folder) that leads nowhere, or out of the repository.
func BrokenLinks(root string) ([]string, error) {
	files, err := MarkdownFiles(root)
	if err != nil {
		return nil, err
	}
	return CheckLinks(root, files)
}

// addGenerated adds to paths the pages with generated sections: the
// README's sample matrix and the verdicts page's golden summary, made from
// the golden table g, and the mutation page's table, made from the mutation
// results; a record that does not exist (nil) leaves its pages alone.
func addGenerated(paths map[string][]byte, src Sources, results []mutants.Result, g report.Golden) error {
	splice := func(path string, with func(string) (string, error)) error {
		text := string(paths[path])
		if text == "" {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			text = string(data)
		}
		out, err := with(text)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		paths[path] = []byte(out)
		return nil
	}
	if results != nil {
		table := MutationTable(results)
		if err := splice(src.MutationDoc, func(t string) (string, error) { return SpliceMutationTable(t, table) }); err != nil {
			return err
		}
	}
	if g != nil {
		summary := GoldenSummary(g)
		if err := splice(src.GoldenDoc, func(t string) (string, error) { return SpliceGoldenSummary(t, summary) }); err != nil {
			return err
		}
		matrix := GoldenMatrix(g, src.MatrixTargets, src.Bundle.CellOrder)
		if err := splice(src.Readme, func(t string) (string, error) { return SpliceGoldenMatrix(t, matrix) }); err != nil {
			return err
		}
	}
	return nil
}

// WriteMutationTable replaces the generated mutation table of the page at
// path with table, for `draconform mutation --table`.
func WriteMutationTable(path, table string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := SpliceMutationTable(string(text), table)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
