package docs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/tools/quality/bench"
)

// AddBench adds to paths dir/bench.md rendered from dir/bench.json, so the
// page follows its renderer without measuring anything again (`draconform
// bench` runs clusters; `draconform docs` only renders what it recorded),
// and `docs --check` fails when the page and the record disagree. Without
// bench.json the page is left alone.
func AddBench(paths map[string][]byte, dir string) error {
	record := filepath.Join(dir, "bench.json")
	if _, err := os.Stat(record); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	b, err := bench.Load(record)
	if err != nil {
		return err
	}
	paths[filepath.Join(dir, "bench.md")] = []byte(bench.Markdown(b))
	return nil
}
