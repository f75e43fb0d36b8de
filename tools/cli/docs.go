package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/quality/docs"
	"github.com/spf13/pflag"
)

// defaultProviders is what run tests without --provider, and so what make
// conformance prints a matrix of.
const defaultProviders = "local,prototype"

// docsCmd writes (or, with --check, verifies) the documents generated from
// the specs and the records: the traceability table, the interpretation
// register, the README's sample matrix, docs/verdicts.md's golden summary and
// docs/mutation.md's table; and
// checks every link of the repository's pages (the README's folder).
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
		if *readme == "" {
			*readme = filepath.Join(*dir, "..", "README.md")
		}
		if *goldenDoc == "" {
			*goldenDoc = filepath.Join(*dir, "verdicts.md")
		}
		if *mutationDoc == "" {
			*mutationDoc = filepath.Join(*dir, "mutation.md")
		}
		gen, err := docs.Generate(docs.Sources{Bundle: b, BuiltIn: sf.suites == "" && sf.fixtures == "", SuiteDigest: suiteDigest(),
			Dir: *dir, Readme: *readme, GoldenDoc: *goldenDoc, MutationDoc: *mutationDoc, MatrixTargets: splitList(defaultProviders)})
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		stale, err := writeOrCheck(gen.Files, *check, "draconform docs (or make docs)", s)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		if *check && len(gen.Stale) > 0 {
			var lines []string
			for _, o := range gen.Stale {
				lines = append(lines, o.String())
			}
			fmt.Fprintf(s.Err, "draconform docs: %s is stale, so its table says nothing of these suites; rerun make mutation MUTANTS=%s\n  %s\n",
				filepath.Join(*dir, "mutation.json"), strings.Join(docs.StaleNames(gen.Stale), ","), strings.Join(lines, "\n  "))
			stale = true
		}
		if len(gen.Uncovered) > 0 {
			fmt.Fprintf(s.Err, "draconform docs: %s has no outcome of %s at a cell where it records that implementation; rerun its run there with --update-golden (kind: make gate-matrix; kind-kep: make gate-matrix-kep), or add the outcome the provider gives without running (skipped: the provider cannot run this cell)\n  %s\n",
				filepath.Join(*dir, "golden-outcomes.json"), textline.Count(len(gen.Uncovered), "case"), strings.Join(gen.Uncovered, "\n  "))
			stale = true
		}
		broken, err := docs.BrokenLinks(filepath.Dir(*readme))
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
