package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// up starts one control plane: with no --provider it is the embedded
// vanilla one (the run's default list, "local,prototype", was refused by
// up's own check), and a list is refused before any folder is made.
func TestUpStartsOneImplementation(t *testing.T) {
	fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
	upCmd(fs)
	if got := fs.Lookup("provider").Value.String(); got != "local" {
		t.Errorf("up's --provider defaults to %q; want local", got)
	}
	out := t.TempDir() + "/up"
	code, _, errs := run(t, "up", "--provider", "local,prototype", "--out", out)
	if code != 2 || !strings.Contains(errs, "starts one implementation's control plane; --provider names local,prototype") {
		t.Errorf("up --provider local,prototype: code %d, stderr %q; want 2 and the reason", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused up made %s", out)
	}
}
