package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command line draconform refuses exits 2, as kubectl's do, and says
// in at most two lines what is wrong, the closest valid name, and where
// the valid names are listed (issue 41). Rows that name a run carry
// --provider kubeconfig with a kubeconfig that does not exist, so that a
// refusal that regresses ends at the preflight, never on a cluster; the
// message still tells the rows apart.
func TestCommandLineRefusals(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "no-such-kubeconfig"))
	file := filepath.Join(home, "suite.yaml")
	if err := os.WriteFile(file, []byte("kind: Suite\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	noCluster := []string{"--provider", "kubeconfig"}
	for _, tt := range []struct {
		name string
		args []string
		// says are what stderr must hold, in order.
		says []string
	}{
		{"misspelt provider", []string{"run", "--provider", "lokal"},
			[]string{"--provider lokal: no implementation of that name (did you mean local?)", "draconform plan --list providers lists them"}},
		{"misspelt mutant", []string{"run", "--provider", "local,prototype-explicit-name-onyl"},
			[]string{"--provider prototype-explicit-name-onyl", "did you mean prototype-explicit-name-only?"}},
		{"empty provider list", []string{"run", "--provider", ","},
			[]string{"--provider names no implementation"}},
		{"misspelt suite", append([]string{"run", "--suite", "feature-absnt"}, noCluster...),
			[]string{"--suite feature-absnt: no suite of that name (did you mean feature-absent?)", "draconform plan --list suites lists them"}},
		{"misspelt cell", append([]string{"run", "--cells", "capacity-onn"}, noCluster...),
			[]string{"--cells capacity-onn: no cell of that name (did you mean capacity-on?)", "draconform plan --list cells lists them"}},
		{"cell of no case of the suite", append([]string{"run", "--suite", "feature-absent", "--cells", "capacity-on"}, noCluster...),
			[]string{"--suite feature-absent --cells capacity-on select no case", "draconform plan --suite feature-absent"}},
		{"focus that matches nothing", append([]string{"run", "--focus", "implicit-nme"}, noCluster...),
			[]string{`--focus "implicit-nme" matches no case (did you mean implicit-name?)`, "draconform plan --list cases"}},
		{"label filter that matches nothing", append([]string{"run", "--label-filter", "suite:nope"}, noCluster...),
			[]string{`--label-filter "suite:nope" matches no case`}},
		{"label filter that does not parse", append([]string{"run", "--label-filter", "(("}, noCluster...),
			[]string{`--label-filter "((": Syntax Error Parsing Label Filter: Mismatched '('`}},
		{"an argument to run", []string{"run", "extra-arg"},
			[]string{`draconform run: takes no arguments, got "extra-arg"`, "draconform run --help"}},
		{"suites folder that does not exist", []string{"lint", "--suites", filepath.Join(home, "nope")},
			[]string{"--suites " + filepath.Join(home, "nope") + ": no such folder"}},
		{"suites given a file", []string{"lint", "--suites", file},
			[]string{"--suites " + file + ": a file, not a folder"}},
		{"suites folder with no YAML", []string{"lint", "--suites", empty},
			[]string{"--suites " + empty + ": no *.yaml file in this folder"}},
		{"plan with a misspelt cell", []string{"plan", "--cells", "nope"},
			[]string{"--cells nope: no cell of that name", "draconform plan --list cells"}},
		{"plan with a focus that matches nothing", []string{"plan", "--focus", "strict-write-rejectd"},
			[]string{`--focus "strict-write-rejectd" matches no case (did you mean strict-write-rejected?)`}},
		{"plan --list of nothing kept", []string{"plan", "--list", "cell"},
			[]string{"--list cell: not a list draconform keeps (did you mean cells?)", "suites, cells, cases, providers, claims"}},
		{"misspelt claim", []string{"certify", "--product", file, "--claim", "kep6406-gates-onn"},
			[]string{"--claim kep6406-gates-onn is not a claim (did you mean kep6406-gates-on?)", "kep6406-gates-on,"}},
		{"cleanup with no kubeconfig", []string{"cleanup"},
			[]string{"draconform cleanup: no kubeconfig"}},
		{"misspelt verb", []string{"rnu"},
			[]string{`unknown command "rnu"`, "run"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := run(t, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, errs)
			}
			rest := errs
			for _, want := range tt.says {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order):\n%s", want, errs)
				}
				rest = rest[i+len(want):]
			}
			if strings.ContainsAny(errs, "\x1b") || strings.Contains(errs, "{{") {
				t.Errorf("colour codes or markup in a refusal:\n%q", errs)
			}
			if lines := strings.Count(strings.TrimSpace(errs), "\n") + 1; lines > 2 && tt.name != "misspelt verb" {
				t.Errorf("%d lines, want at most 2:\n%s", lines, errs)
			}
		})
	}
}

// Every verb that takes no arguments refuses them: a filter written
// without its flag would otherwise be dropped, and more run than asked.
func TestVerbsRefuseArguments(t *testing.T) {
	for _, v := range verbs() {
		if takesArgs[v.name] {
			continue
		}
		code, _, errs := run(t, v.name, "stray")
		if code != 2 || !strings.Contains(errs, "takes no arguments") {
			t.Errorf("%s stray: exit %d, stderr %q", v.name, code, errs)
		}
	}
}
