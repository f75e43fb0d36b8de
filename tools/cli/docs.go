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

// docsCmd writes (or, with --check, verifies) the documents generated from
// the specs: the traceability table and the interpretation register.
func docsCmd(fs *pflag.FlagSet) action {
	var sf specFlags
	sf.register(fs)
	dir := fs.String("out", "docs", "directory to write into")
	check := fs.Bool("check", false, "fail if the files differ from what the specs give, write nothing")
	readme := fs.String("readme", "", "README whose mutation table and golden summary are generated from <out>/mutation.json and <out>/golden-outcomes.json (default <out>/../README.md)")
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
		text, err := readmeWithGenerated(*readme, results, filepath.Join(*dir, "golden-outcomes.json"))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		if text != "" {
			paths[*readme] = []byte(text)
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
		if stale {
			return 1
		}
		return 0
	}
}

// readmeWithGenerated is the README with its generated sections made from
// the mutation results and the golden table, or "" when there is neither.
func readmeWithGenerated(path string, results []mutants.Result, goldenPath string) (string, error) {
	g, err := report.LoadGolden(goldenPath)
	if errors.Is(err, fs.ErrNotExist) {
		g, err = nil, nil
	}
	if err != nil {
		return "", err
	}
	if results == nil && g == nil {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text := string(data)
	if results != nil {
		if text, err = docs.SpliceMutationTable(text, docs.MutationTable(results)); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	if g != nil {
		if text, err = docs.SpliceGoldenSummary(text, docs.GoldenSummary(g)); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	return text, nil
}
