// Package app is the draconform command line: one function per verb, each
// taking its arguments and streams, so every verb is testable without a
// process of its own.
package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/loader"
)

// Streams are where a verb writes.
type Streams struct {
	Out io.Writer
	Err io.Writer
}

type verb struct {
	name, usage string
	run         func(ctx context.Context, args []string, s Streams) int
}

func verbs() []verb {
	return []verb{
		{"run", "run the suites against a cluster (default: an embedded v1.37.2 control plane)", runCmd},
		{"mutation", "run the suite against every known-broken implementation and show which cases catch each", mutationCmd},
		{"flake-check", "run the whole suite N times (default 20) and compare every run with the golden outcomes", flakeCheckCmd},
		{"lint", "load and validate suites and fixtures; report every problem with file:line", lintCmd},
		{"plan", "list the cases a run would execute, with their labels", planCmd},
		{"docs", "write docs/traceability.md and docs/register.md from the specs (--check verifies them)", docsCmd},
		{"kind-configs", "write kind-configs/<cell>.yaml, a kind cluster config per gate cell (--check verifies them)", kindConfigsCmd},
		{"schema", "print the JSON Schema of suite, fixture and cell files, for editors", schemaCmd},
		{"cleanup", "delete what draconform runs left on a cluster (objects carrying its run label)", cleanupCmd},
		{"up", "start an embedded control plane for one cell and keep it until Ctrl-C", upCmd},
		{"binaries", "build (or find in the cache) the Kubernetes binaries of the embedded control plane", binariesCmd},
		{"node-image", "build (or find) the kind node image made offline from Debian packages and Go modules; prints its tag", nodeImageCmd},
		{"engine", "up: a Docker engine that runs kind's privileged nodes (starts one where needed); down: stop it", engineCmd},
	}
}

// Run dispatches to a verb and returns the process exit code.
func Run(ctx context.Context, args []string, s Streams) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(s.Out)
		return 0
	}
	for _, v := range verbs() {
		if v.name == args[0] {
			return v.run(ctx, args[1:], s)
		}
	}
	fmt.Fprintf(s.Err, "draconform: unknown command %q\n\n", args[0])
	usage(s.Err)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "draconform: conformance suite for KEP-6406 (DRA extended resource capacity)")
	fmt.Fprintln(w, "\nusage: draconform <command> [flags]   (draconform <command> -h for its flags)")
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-11s %s\n", v.name, v.usage)
	}
}

// specFlags are the flags every verb that loads specs shares.
type specFlags struct {
	suites, fixtures string
}

func (f *specFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.suites, "suites", "", "directory of suite YAML files (default: the suites built into draconform)")
	fs.StringVar(&f.fixtures, "fixtures", "", "directory of fixture YAML files (default: the fixtures built into draconform)")
}

func (f *specFlags) load() (*loader.Bundle, error) {
	var sfs, ffs fs.FS = suites.FS, fixtures.FS
	if f.suites != "" {
		sfs = os.DirFS(f.suites)
	}
	if f.fixtures != "" {
		ffs = os.DirFS(f.fixtures)
	}
	return loader.Load(sfs, ffs)
}

// loadOrReport loads the specs, or prints every problem and returns nil.
func (f *specFlags) loadOrReport(s Streams) *loader.Bundle {
	b, err := f.load()
	if err != nil {
		fmt.Fprintln(s.Err, err)
		return nil
	}
	return b
}

// outputDir resolves (default: _output/<name>) and creates a run's output
// directory, as an absolute path since components run from other folders.
func outputDir(flagValue, name string) (string, error) {
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

func newFlagSet(name string, s Streams) *flag.FlagSet {
	fs := flag.NewFlagSet("draconform "+name, flag.ContinueOnError)
	fs.SetOutput(s.Err)
	return fs
}
