package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, ".draconform.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A config file's problems refuse the command (exit 2) with file:line, as
// lint does; a --config that names no file too.
func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		verb       string
		want       string // after the file's path
	}{
		{"unknown key", "suite: kep6406-api\nprovder: local\n", "run", `:2: unknown key "provder": the keys are the command's long flag names (did you mean provider?)`},
		{"wrong type", "fail-fast: yes\n", "run", `:1: expected a bool for "fail-fast", found str "yes"`},
		{"bad YAML", "cells: capacity-on\nsuite: kep6406-api\n  parallel: 2\n", "plan", `:3: mapping values are not allowed in this context`},
		{"a flag of another verb", "fail-fast: true\n", "plan", `:1: unknown key "fail-fast"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tc.text)
			code, out, errs := run(t, tc.verb, "--config", path)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errs)
			}
			if !strings.Contains(errs, path+tc.want) {
				t.Errorf("stderr lacks %q:\n%s", path+tc.want, errs)
			}
		})
	}
	missing := filepath.Join(dir, "none.yaml")
	if code, _, errs := run(t, "run", "--config", missing); code != 2 || !strings.Contains(errs, "--config "+missing+": no such file") {
		t.Errorf("a missing --config file: exit %d, stderr %s", code, errs)
	}
}

// The file read is said in one line; the command line beats the file; the
// default file is .draconform.yaml in the current folder.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "suite: kep6406-api\ncells: capacity-on\n")
	t.Chdir(dir)
	code, out, errs := run(t, "plan")
	if code != 0 || !strings.Contains(out, "kep6406-api/field-stored@capacity-on") || strings.Contains(out, "kep6406-scheduling/") || strings.Contains(out, "@defaults") {
		t.Errorf("plan with the file's suite and cells: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "draconform: config .draconform.yaml read: suite, cells\n") {
		t.Errorf("no line says which config file was read:\n%s", errs)
	}
	code, out, errs = run(t, "plan", "--suite", "kep6406-scheduling")
	if code != 0 || strings.Contains(out, "kep6406-api/") || !strings.Contains(out, "kep6406-scheduling/") {
		t.Errorf("plan --suite kep6406-scheduling with the file's kep6406-api: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "read: cells; the command line wins for suite") {
		t.Errorf("the line does not say the command line won:\n%s", errs)
	}
}

// With --rerun-failed, a provider the file sets does not count as typed:
// the rerun follows the past run (here, which --provider alone cannot give
// again, so it is refused), while a --provider typed on the command line
// is taken (here, a misspelt one, refused as such).
func TestConfigProviderAndRerunFailed(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	past := pastRun(t, report.Outcome{ID: "s/a@c", Target: "local-bin", Suite: "s", Cell: "c", State: report.Failed})
	cfg := writeConfig(t, t.TempDir(), "provider: local\n")
	code, _, errs := run(t, "run", "--config", cfg, "--rerun-failed", past)
	if code != 2 || !strings.Contains(errs, `cases failed on "local-bin", which --provider alone does not give again`) {
		t.Errorf("the file's provider was taken as typed: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, "run", "--config", cfg, "--rerun-failed", past, "--provider", "lokal")
	if code != 2 || !strings.Contains(errs, "--provider lokal: no implementation of that name") {
		t.Errorf("the typed provider was not taken: exit %d\n%s", code, errs)
	}
}
