package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Colour only on a terminal, and never with --no-color or NO_COLOR set.
func TestColourOnlyOnATerminalAndNotWhenRefused(t *testing.T) {
	terminal := func(io.Writer) bool { return true }
	none := func(string) string { return "" }
	noColorEnv := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	var buf bytes.Buffer
	for _, tt := range []struct {
		name     string
		s        Streams
		terminal func(io.Writer) bool
		getenv   func(string) string
		want     bool
	}{
		{"terminal", Streams{Out: &buf}, terminal, none, true},
		{"--no-color on a terminal", Streams{Out: &buf, NoColor: true}, terminal, none, false},
		{"NO_COLOR on a terminal", Streams{Out: &buf}, terminal, noColorEnv, false},
		{"a buffer", Streams{Out: &buf}, isTerminal, none, false},
	} {
		if got := colour(tt.s, tt.terminal, tt.getenv); got != tt.want {
			t.Errorf("%s: colour %v, want %v", tt.name, got, tt.want)
		}
	}
	// /dev/null is a character device, not a terminal: output sent there
	// or to a pipe gets no colour codes.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, f := range []*os.File{null, w} {
		if isTerminal(f) {
			t.Errorf("%s counts as a terminal", f.Name())
		}
	}
}

// The verbs see --no-color, which every verb takes.
func TestNoColorReachesTheVerb(t *testing.T) {
	var seen Streams
	root := newRoot(Streams{Out: io.Discard, Err: io.Discard}, new(int))
	for _, c := range root.Commands() {
		if c.Name() == "plan" {
			c.Run = func(c2 *cobra.Command, _ []string) {
				seen.NoColor, _ = c2.Flags().GetBool("no-color")
			}
		}
	}
	root.SetArgs([]string{"plan", "--no-color"})
	if err := root.Execute(); err != nil || !seen.NoColor {
		t.Errorf("plan --no-color: err %v, no-color %v", err, seen.NoColor)
	}
}

// -v is --verbose under every verb that prints steps; at the root, where
// it printed the version, it still does, and says what -v means now.
func TestVIsVerbose(t *testing.T) {
	for _, verb := range []string{"run"} {
		_, out, _ := run(t, verb, "--help")
		if !strings.Contains(out, "-v, --verbose") {
			t.Errorf("%s --help has no -v, --verbose:\n%s", verb, out)
		}
	}
	code, out, errs := run(t, "-v")
	if code != 0 || !strings.Contains(out, "suites ") || !strings.Contains(errs, "-v is --verbose") {
		t.Errorf("draconform -v: exit %d, out %q, err %q", code, out, errs)
	}
	code, out, errs = run(t, "--version")
	if code != 0 || !strings.Contains(out, "suites ") || errs != "" {
		t.Errorf("draconform --version: exit %d, out %q, err %q", code, out, errs)
	}
	_, out, _ = run(t, "--help")
	if strings.Contains(out, "-v, --version") {
		t.Errorf("the root's help still offers -v for the version:\n%s", out)
	}
}
