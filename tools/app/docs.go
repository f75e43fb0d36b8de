package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/draconform/draconform/tools/docs"
)

// docsCmd writes (or, with --check, verifies) the documents generated from
// the specs: the traceability table and the interpretation register.
func docsCmd(_ context.Context, args []string, s Streams) int {
	fs := newFlagSet("docs", s)
	var sf specFlags
	sf.register(fs)
	dir := fs.String("out", "docs", "directory to write into")
	check := fs.Bool("check", false, "fail if the files differ from what the specs give, write nothing")
	readme := fs.String("readme", "", "README whose mutation table is generated from <out>/mutation.json (default <out>/../README.md)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b := sf.loadOrReport(s)
	if b == nil {
		return 1
	}
	files := map[string]string{
		"traceability.md": docs.Traceability(b),
		"register.md":     docs.Register(b),
	}
	results, err := docs.LoadMutationResults(filepath.Join(*dir, "mutation.json"))
	if err != nil {
		fmt.Fprintln(s.Err, "draconform docs:", err)
		return 1
	}
	paths := map[string][]byte{}
	for name, text := range files {
		paths[filepath.Join(*dir, name)] = []byte(text)
	}
	if *readme == "" {
		*readme = filepath.Join(*dir, "..", "README.md")
	}
	if results != nil {
		text, err := readmeWithMutationTable(*readme, docs.MutationTable(results))
		if err != nil {
			fmt.Fprintln(s.Err, "draconform docs:", err)
			return 1
		}
		paths[*readme] = []byte(text)
	}
	stale, err := writeOrCheck(paths, *check, "draconform docs (or make docs)", s)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform docs:", err)
		return 1
	}
	if stale {
		return 1
	}
	return 0
}
