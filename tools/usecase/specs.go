package usecase

import (
	"fmt"
	"github.com/draconform/draconform/steps"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

// Specs are the folders of suites and fixtures a use case loads, "" for
// the ones built into draconform.
type Specs struct {
	Suites, Fixtures string
}

// BuiltIn says whether the specs are draconform's own.
func (f Specs) BuiltIn() bool { return f.Suites == "" && f.Fixtures == "" }

// load reads the specs; a problem names a user's folder as the user gave
// it, the built-in ones as suites/ and fixtures/.
func (f Specs) load() (*loader.Bundle, error) {
	var sfs, ffs fs.FS = suites.FS, fixtures.FS
	sdir, fdir := "suites", "fixtures"
	if f.Suites != "" {
		sfs, sdir = os.DirFS(f.Suites), filepath.Clean(f.Suites)
	}
	if f.Fixtures != "" {
		ffs, fdir = os.DirFS(f.Fixtures), filepath.Clean(f.Fixtures)
	}
	return loader.LoadNamed(sfs, sdir, ffs, fdir, steps.Kinds())
}

// Load loads the specs, or says why not as an error whose exit code is 2
// for a --suites or --fixtures that names no folder of YAML files, 1 for
// problems in the files.
func (f Specs) Load() (*loader.Bundle, error) {
	for _, r := range []*Refusal{checkSpecDir("--suites", f.Suites), checkSpecDir("--fixtures", f.Fixtures)} {
		if r != nil {
			return nil, r
		}
	}
	b, err := f.load()
	if err != nil {
		return nil, failed(1, err)
	}
	return b, nil
}

// loadOr loads the specs, or prints why not and returns the exit code.
func (f Specs) loadOr(s Streams) (*loader.Bundle, int) {
	b, err := f.Load()
	if err != nil {
		code, msg := ExitCode(err)
		if _, ok := err.(*Refusal); ok {
			msg = "draconform: " + msg
		}
		fmt.Fprintln(s.Err, msg)
		return nil, code
	}
	return b, 0
}

// Filter is the cells and suites a run or a plan selects, comma-separated,
// "" for all.
type Filter struct {
	Cells, Suites string
}

func (f Filter) plan() plan.Filter {
	return plan.Filter{Cells: splitList(f.Cells), Suites: splitList(f.Suites)}
}

// OutputDir resolves (default: _output/<name>) and creates a use case's
// output directory, as an absolute path since components run from other
// folders.
func OutputDir(flagValue, name string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = filepath.Join("_output", name)
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", fmt.Errorf("output directory: %w", err)
	}
	return dir, nil
}

func outputDir(flagValue, name string) (string, error) { return OutputDir(flagValue, name) }
