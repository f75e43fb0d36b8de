package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/build/mutants"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/quality/docs"
	"github.com/draconform/draconform/tools/report"
	"github.com/spf13/pflag"
)

// defaultProviders is what run tests without --provider, and so what make
// conformance prints a matrix of.
const defaultProviders = "local,prototype"

// docsCmd writes (or, with --check, verifies) the documents generated from
// the specs and the records: the traceability table, the interpretation
// register, the README's sample matrix, docs/verdicts.md's golden summary and
// docs/mutation.md's table; and
// checks every relative link of the README and the docs.
func docsCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	sf.register(fs)
	dir := fs.String("out", "docs", "directory to write into")
	check := fs.Bool("check", false, "fail if the files differ from what the specs give, write nothing")
	readme := fs.String("readme", "", "README whose sample matrix is generated from <out>/golden-outcomes.json (default <out>/../README.md)")
	goldenDoc := fs.String("golden-doc", "", "page whose golden summary is generated from <out>/golden-outcomes.json (default <out>/verdicts.md)")
	mutationDoc := fs.String("mutation-doc", "", "page whose mutation table is generated from <out>/mutation.json (default <out>/mutation.md)")
	return func(_ context.Context, args []string, s Streams) int {
		b, code := sf.loadOr(s)
		if b == nil {
			return code
		}
		files := map[string]string{
			"traceability.md": docs.Traceability(b),
			"register.md":     docs.Register(b),
		}
		results, err := mutants.LoadResults(filepath.Join(*dir, "mutation.json"))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		paths := map[string][]byte{}
		for name, text := range files {
			paths[filepath.Join(*dir, name)] = []byte(text)
		}
		// The mutation table speaks of the built-in suites: a kill resting
		// only on cases that changed since would claim what these suites
		// may not show.
		var old []docs.Stale
		if results != nil && sf.suites == "" && sf.fixtures == "" {
			digests, err := plan.Digests(b)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform docs:", err)
				return 1
			}
			now := docs.Suites{Digest: suiteDigest(), Cases: digests, Blocking: plan.Blocking(b)}
			docs.RecordDigests(results, now)
			docs.DropChanged(results, now)
			data, err := mutants.EncodeResults(results)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform docs:", err)
				return 1
			}
			paths[filepath.Join(*dir, "mutation.json")] = data
			old = docs.StaleMutations(results, mutants.Names(), now)
		}
		if *readme == "" {
			*readme = filepath.Join(*dir, "..", "README.md")
		}
		if *goldenDoc == "" {
			*goldenDoc = filepath.Join(*dir, "verdicts.md")
		}
		if *mutationDoc == "" {
			*mutationDoc = filepath.Join(*dir, "mutation.md")
		}
		if err := addGenerated(paths, *readme, *goldenDoc, *mutationDoc, results, filepath.Join(*dir, "golden-outcomes.json"), b.CellOrder); err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		stale, err := writeOrCheck(paths, *check, "draconform docs (or make docs)", s)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		if *check && len(old) > 0 {
			var lines []string
			for _, o := range old {
				lines = append(lines, o.String())
			}
			fmt.Fprintf(s.Err, "draconform docs: %s is stale, so its table says nothing of these suites; rerun make mutation MUTANTS=%s\n  %s\n",
				filepath.Join(*dir, "mutation.json"), strings.Join(docs.StaleNames(old), ","), strings.Join(lines, "\n  "))
			stale = true
		}
		broken, err := brokenLinks(*readme, *dir)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		if len(broken) > 0 {
			fmt.Fprintf(s.Err, "draconform docs: %d broken links:\n  %s\n", len(broken), strings.Join(broken, "\n  "))
			stale = true
		}
		if stale {
			return 1
		}
		return 0
	}
}

// brokenLinks is every relative link of the README and the docs that leads
// nowhere.
func brokenLinks(readme, dir string) ([]string, error) {
	files, err := docs.MarkdownFiles(readme, dir)
	if err != nil {
		return nil, err
	}
	return docs.CheckLinks(files)
}

// addGenerated adds to paths the pages with generated sections: the
// README's sample matrix and the verdicts page's golden summary, made from
// the golden table, and the mutation page's table, made from the mutation
// results; a record that does not exist leaves its pages alone.
func addGenerated(paths map[string][]byte, readme, goldenDoc, mutationDoc string, results []mutants.Result, goldenPath string, cellOrder []string) error {
	g, err := report.LoadGolden(goldenPath)
	if errors.Is(err, fs.ErrNotExist) {
		g, err = nil, nil
	}
	if err != nil {
		return err
	}
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
		table := docs.MutationTable(results)
		if err := splice(mutationDoc, func(t string) (string, error) { return docs.SpliceMutationTable(t, table) }); err != nil {
			return err
		}
	}
	if g != nil {
		summary := docs.GoldenSummary(g)
		if err := splice(goldenDoc, func(t string) (string, error) { return docs.SpliceGoldenSummary(t, summary) }); err != nil {
			return err
		}
		matrix := docs.GoldenMatrix(g, splitList(defaultProviders), cellOrder)
		if err := splice(readme, func(t string) (string, error) { return docs.SpliceGoldenMatrix(t, matrix) }); err != nil {
			return err
		}
	}
	return nil
}
