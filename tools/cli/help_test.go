package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Every help fits 100 columns, and the root's lists what a user reaches
// for before what builds draconform (issue 41).
func TestHelpFitsAndListsUserVerbsFirst(t *testing.T) {
	helps := [][]string{{"--help"}}
	for _, v := range verbs() {
		helps = append(helps, []string{v.name, "--help"})
	}
	for _, args := range helps {
		code, out, _ := run(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, line := range strings.Split(out, "\n") {
			// A single word longer than the width (an image digest) has
			// nowhere to break.
			if len(line) > helpWidth && len(strings.Fields(line)) > 1 {
				t.Errorf("%v: a line of %d columns: %q", args, len(line), line)
			}
		}
	}
	_, out, _ := run(t, "--help")
	user, dev := strings.Index(out, "\n  run "), strings.Index(out, "\n  bench ")
	if user < 0 || dev < 0 || user > dev {
		t.Errorf("run is not listed before bench:\n%s", out)
	}
	if _, out, _ := run(t, "run", "--help"); !strings.Contains(out, "Examples:\n  draconform run") {
		t.Errorf("run --help has no examples:\n%s", out)
	}
}

// make help (make alone too) lists every target the Makefile documents
// with a ## comment, within 100 columns.
func TestMakeHelpListsEveryDocumentedTarget(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	// Read, never run bare: on a Makefile without it, make alone would
	// run its first target.
	if !strings.Contains(string(data), "\n.DEFAULT_GOAL := help\n") {
		t.Error("make alone does not list the targets (.DEFAULT_GOAL := help)")
	}
	out, err := exec.Command("make", "-s", "-C", "../..", "help").Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	targets := regexp.MustCompile(`(?m)^## ([a-z-]+): `).FindAllStringSubmatch(string(data), -1)
	if len(targets) < 10 {
		t.Fatalf("only %d documented targets", len(targets))
	}
	for _, m := range targets {
		if !regexp.MustCompile(`(?m)^  ` + m[1] + ` +\S`).Match(out) {
			t.Errorf("make help does not list %s:\n%s", m[1], out)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if len(line) > helpWidth {
			t.Errorf("a line of %d columns: %q", len(line), line)
		}
	}
}

// The shell completes providers, suites and cells, after a comma too.
func TestCompletionOfNames(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "run", "--provider", "proto"}, "prototype-static\n"},
		{[]string{"__complete", "run", "--provider", "local,pro"}, "local,prototype\n"},
		{[]string{"__complete", "plan", "--suite", "feature-ab"}, "feature-absent\n"},
		{[]string{"__complete", "run", "--cells", "defaults,capacity-o"}, "defaults,capacity-on\n"},
	} {
		_, out, _ := run(t, tt.args...)
		if !strings.Contains(out, tt.want) {
			t.Errorf("%v: completions\n%s\nlack %q", tt.args, out, tt.want)
		}
	}
	if _, out, _ := run(t, "__complete", "run", "--provider", "local,"); strings.Contains(out, "local,local\n") {
		t.Errorf("completes a name already given:\n%s", out)
	}
}
