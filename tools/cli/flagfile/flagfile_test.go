package flagfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// runFlags are a few of run's flags, one of each type a config sets.
type runFlags struct {
	provider string
	failFast bool
	parallel int
	timeout  time.Duration
}

func newFlags() (*pflag.FlagSet, *runFlags) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f runFlags
	fs.StringVar(&f.provider, "provider", "local,prototype", "")
	fs.BoolVar(&f.failFast, "fail-fast", false, "")
	fs.IntVar(&f.parallel, "parallel", 0, "")
	fs.DurationVar(&f.timeout, "case-timeout", 5*time.Minute, "")
	fs.String("config", "", "")
	fs.String("secret", "", "")
	_ = fs.MarkHidden("secret")
	return fs, &f
}

func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".draconform.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every problem is refused with the file and the line it is on, and the
// keys' names are the flags', with the closest one as a hint.
func TestRefusalsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // each at file:line
	}{
		{"unknown key", "provider: local\nprovder: prototype\n", []string{`:2: unknown key "provder"`, `did you mean provider?`}},
		{"hidden flag", "secret: x\n", []string{`:1: unknown key "secret"`}},
		{"a string for a bool", "fail-fast: yes\n", []string{`:1: expected a bool for "fail-fast", found str "yes"`}},
		{"a list for a string", "provider:\n  - local\n  - prototype\n", []string{`:2: expected a string for "provider", found a list`}},
		{"true for a string", "\n\nprovider: true\n", []string{`:3: expected a string for "provider", found bool "true"`}},
		{"text for an int", "parallel: two\n", []string{`:1: expected a int for "parallel", found str "two"`}},
		{"a bad duration", "case-timeout: 5 minutes\n", []string{`:1: "case-timeout": time: unknown unit`}},
		{"not YAML", "provider: local\n  parallel: [1\n", []string{`:2: mapping values are not allowed in this context`}},
		{"not a map", "- provider\n", []string{`:1: expected a map of flag names to values, found a list`}},
		{"a duplicate", "provider: local\nprovider: kind\n", []string{`:2: duplicate key "provider"`}},
		{"another config", "config: other.yaml\n", []string{`:1: key "config": a config file cannot name another one`}},
		{"all at once", "provder: x\nparallel: two\n", []string{`:1: unknown key "provder"`, `:2: expected a int`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := newFlags()
			path := write(t, tc.text)
			_, err := Apply(fs, path, true)
			if err == nil {
				t.Fatalf("%q accepted", tc.text)
			}
			for _, w := range tc.want {
				if strings.HasPrefix(w, ":") {
					w = path + w
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// A --config that names no file is an error; no file at the default path
// is no config at all.
func TestMissingFile(t *testing.T) {
	fs, _ := newFlags()
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := Apply(fs, missing, true); err == nil || !strings.Contains(err.Error(), "--config "+missing+": no such file") {
		t.Errorf("a named missing file: %v", err)
	}
	if a, err := Apply(fs, missing, false); a != nil || err != nil {
		t.Errorf("a missing default file: %v, %v, want nothing", a, err)
	}
}

// The command line wins over the file, and a value the file sets does not
// count as given on the command line.
func TestCommandLineWinsAndFileIsNotGiven(t *testing.T) {
	fs, f := newFlags()
	if err := fs.Parse([]string{"--parallel", "3"}); err != nil {
		t.Fatal(err)
	}
	path := write(t, "provider: kind\nfail-fast: true\nparallel: 1\ncase-timeout: 90s\n")
	a, err := Apply(fs, path, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.provider != "kind" || !f.failFast || f.timeout != 90*time.Second {
		t.Errorf("the file's values were not set: %+v", f)
	}
	if f.parallel != 3 {
		t.Errorf("--parallel 3 on the command line lost to the file's 1: %d", f.parallel)
	}
	if !slices.Equal(a.Set, []string{"provider", "fail-fast", "case-timeout"}) || !slices.Equal(a.Overridden, []string{"parallel"}) {
		t.Errorf("applied %+v", a)
	}
	if fs.Changed("provider") {
		t.Error("the file's provider counts as given on the command line")
	}
}

// An empty file sets nothing and is no error.
func TestEmptyFile(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n", "~\n"} {
		fs, f := newFlags()
		a, err := Apply(fs, write(t, text), true)
		if err != nil || a == nil || len(a.Set) != 0 || f.provider != "local,prototype" {
			t.Errorf("%q: %+v, %v", text, a, err)
		}
	}
}
