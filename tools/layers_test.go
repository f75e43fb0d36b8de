package tools

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/draconform/draconform/"

// A layer is a folder of the module and the folders its code may import
// (besides its own). A name written "=tools/cluster" is that package alone,
// not its subfolders. docs/architecture.md draws the same table; a package
// in no layer fails the test, so a new folder is placed on purpose.
type layer struct {
	dir     string
	imports []string
}

// layers, most specific first: a package belongs to the first whose dir
// holds it.
var layers = []layer{
	// The spec language knows the outcome model, never a cluster, a runner
	// or a report's rendering; it checks steps through the step kinds its
	// callers hand it (spec.StepKinds), not by importing the step code.
	{"tools/lang", []string{"tools/report"}},
	// The report imports no layer; only the one-line helper all share.
	{"tools/report", []string{"tools/internal/textline"}},
	{"tools/internal", nil},
	// Steps talk to clusters through the contract only: no provider.
	{"steps/stepstest", []string{"steps", "fixtures", "suites", "tools/lang"}},
	{"steps", []string{"tools/lang/spec", "tools/cluster/promtext", "=tools/cluster"}},
	// The contract holds no provider; providers never reach up to steps,
	// the runner, certification or the CLI.
	{"tools/cluster/promtext", nil},
	{"tools/cluster/kind/kindconfig", []string{"tools/cluster", "tools/lang", "fixtures", "suites"}},
	// The contract holds no KEP semantics either (tools/cluster/probe does).
	{"=tools/cluster", []string{"tools/lang/spec"}},
	// A provider never imports another: each reaches the others only
	// through the contract, and providers/ is the registry that imports
	// them all. The one edge between two: the embedded control plane
	// starts the embedded node beside a cell (localcp → localnode). Both
	// run their processes through localproc, which is no provider.
	{"tools/cluster/providers/providertest", []string{"=tools/cluster"}},
	{"tools/cluster/providers", append([]string{"tools/cluster/kind", "tools/cluster/kubeconfig", "tools/cluster/localcp", "tools/cluster/localnode"}, providerSupport...)},
	{"tools/cluster/kind", providerSupport},
	{"tools/cluster/kubeconfig", providerSupport},
	{"tools/cluster/localcp", append([]string{"tools/cluster/localnode"}, providerSupport...)},
	{"tools/cluster/localnode", providerSupport},
	{"tools/cluster/localproc", []string{"tools/internal"}},
	{"tools/cluster", []string{"tools/build", "tools/host", "tools/internal", "tools/lang/spec", "drivers"}},
	{"tools/host", []string{"tools/internal"}},
	{"tools/build", []string{"tools/internal", "tools/report", "drivers/mutant"}},
	{"tools/runner", []string{"steps", "suites", "fixtures", "tools/lang", "tools/report", "tools/cluster", "tools/build/k8sbuild", "tools/internal"}},
	{"tools/certify", []string{"tools/report", "tools/lang", "tools/internal"}},
	{"tools/quality", []string{"tools/report", "tools/lang", "tools/runner", "tools/cluster", "tools/build"}},
	// The use cases (run, certify, merge, up, bench, ...) are the one layer
	// that loads the specs, builds providers and starts runners for the
	// command line.
	{"tools/usecase", []string{"steps", "suites", "fixtures", "tools/lang", "tools/report", "tools/runner", "tools/cluster",
		"tools/host", "tools/build", "tools/certify", "tools/quality", "tools/internal"}},
	// The command line maps flags to a use case's request and its result
	// to text: no provider, runner or build of its own.
	{"tools/cli", []string{"tools/usecase", "tools/lang", "tools/report", "tools/internal"}},
	{"tools/cmd", []string{"tools/cli", "tools/host/capabilities"}},
	{"drivers", []string{"tools/lang/yamlpos"}},
	{"fixtures", nil},
	{"suites", nil},
}

// providerSupport is what a provider may import: the contract, the
// packages of tools/cluster that are no provider, and the lower floors.
var providerSupport = []string{"=tools/cluster", "tools/cluster/localproc", "tools/cluster/promtext", "tools/cluster/testdriver", "tools/cluster/probe",
	"tools/build", "tools/host", "tools/internal", "tools/lang/spec", "drivers"}

// Every test may read the shipped suites and fixtures. The production-like
// access test also runs the whole CLI in-process, since it tests what a
// user runs and its child processes re-execute the test binary as
// draconform; the runner's end-to-end test needs the runner alone (its
// children serve the runner's shard requests) and the secret scanner.
// A test that loads suites needs the step kinds to check their steps with,
// and only the step code has them (steps.Kinds).
var testOnly = map[string][]string{
	"tools/runner/e2e":              {"tools/certify/secretscan"},
	"tools/certify/access":          {"tools/cli", "tools/cluster", "steps"},
	"tools/lang/loader":             {"steps"},
	"tools/lang/plan":               {"steps"},
	"tools/quality/docs":            {"steps"},
	"tools/cluster/kind/kindconfig": {"steps"},
	// The command line's tests run whole verbs and read what a run left:
	// its output folder, the binaries' cache, the machine's processes.
	"tools/cli": {"tools/runner", "tools/cluster/localcp", "tools/cluster/localnode", "tools/build/k8sbuild"},
	// The kubeconfig provider's tests adopt a real embedded control plane.
	"tools/cluster/kubeconfig": {"tools/cluster/localcp/localcptest"},
}

// under says whether pkg is the folder name or, unless name is "=" one
// package alone, below it.
func under(pkg, name string) bool {
	if exact, ok := strings.CutPrefix(name, "="); ok {
		return pkg == exact
	}
	return pkg == name || strings.HasPrefix(pkg, name+"/")
}

func layerOf(pkg string) (layer, bool) {
	for _, l := range layers {
		if under(pkg, l.dir) {
			return l, true
		}
	}
	return layer{}, false
}

// allowed: an import inside the package's own layer, or under one of the
// layer's folders (or a test's extra ones).
func allowed(l layer, extra []string, imp string) bool {
	for _, a := range append(append([]string{l.dir}, l.imports...), extra...) {
		if under(imp, a) {
			return true
		}
	}
	return false
}

// imports reads every Go file of the module (not the pinned modules, caches
// or test data) and returns, per package folder, what its files and its
// test files import from the module.
func imports(t *testing.T, root string) (code, tests map[string]map[string]bool) {
	t.Helper()
	code, tests = map[string]map[string]bool{}, map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := walkModuleGo(root, func(path, rel string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		into := code
		if strings.HasSuffix(path, "_test.go") {
			into = tests
		}
		for _, spec := range f.Imports {
			imp := strings.Trim(spec.Path.Value, `"`)
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if into[pkg] == nil {
				into[pkg] = map[string]bool{}
			}
			into[pkg][strings.TrimPrefix(imp, module)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's imports: %v", err)
	}
	return code, tests
}

func TestLayers(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	code, tests := imports(t, root)
	if len(code) < 20 {
		t.Fatalf("read the imports of %d packages only: is %s the repository?", len(code), root)
	}
	var problems []string
	check := func(pkg string, imps map[string]bool, extra []string, what string) {
		if pkg == "tools" {
			return // tools.go pins build tools, and this test
		}
		l, ok := layerOf(pkg)
		if !ok {
			problems = append(problems, pkg+": in no layer; place it in tools/layers_test.go and docs/architecture.md")
			return
		}
		for imp := range imps {
			if strings.HasPrefix(imp, "tools/cmd") {
				problems = append(problems, pkg+" "+what+" "+imp+": nothing imports a main")
				continue
			}
			if imp == "tools/cli" && !strings.HasPrefix(pkg, "tools/cmd/") && what == "imports" {
				problems = append(problems, pkg+" imports tools/cli: only the mains do")
				continue
			}
			if !allowed(l, extra, imp) {
				problems = append(problems, pkg+" "+what+" "+imp+": not allowed for layer "+l.dir)
			}
		}
	}
	for pkg, imps := range code {
		check(pkg, imps, nil, "imports")
	}
	for pkg, imps := range tests {
		check(pkg, imps, append([]string{"suites", "fixtures"}, testOnly[pkg]...), "(tests) import")
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// The rules must be able to fail: a lang package reaching a provider, a
// step reaching a provider, a provider reaching the runner, and the command
// line reaching a provider or the runner are refused,
// and a folder in no layer is reported.
func TestLayersRefuse(t *testing.T) {
	for _, c := range []struct{ pkg, imp string }{
		{"tools/lang/plan", "tools/cluster"},
		{"tools/lang/loader", "steps"},
		{"steps", "tools/cluster/localcp"},
		{"tools/cluster/localcp", "tools/runner"},
		{"tools/host/engine", "tools/cluster"},
		{"tools/report", "tools/lang/spec"},
		{"tools/runner", "tools/cli"},
		{"tools/cluster", "tools/cluster/localcp"},
		{"tools/cli", "tools/cluster/providers"},
		{"tools/cli", "tools/runner"},
		{"tools/cli", "tools/cluster/localcp"},
		{"tools/cluster/kind", "tools/cluster/localcp"},
		{"tools/cluster/localcp", "tools/cluster/kind"},
		{"tools/cluster/localnode", "tools/cluster/localcp"},
		{"tools/cluster/kubeconfig", "tools/cluster/localnode"},
		{"tools/cluster/localproc", "tools/cluster/localcp"},
		{"tools/cluster/providers/providertest", "tools/cluster/localcp"},
	} {
		l, ok := layerOf(c.pkg)
		if !ok {
			t.Errorf("%s: in no layer", c.pkg)
			continue
		}
		if allowed(l, nil, c.imp) {
			t.Errorf("%s may import %s", c.pkg, c.imp)
		}
	}
	if _, ok := layerOf("tools/newthing"); ok {
		t.Error("tools/newthing is placed in a layer without being listed")
	}
}
