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

// up starts an embedded control plane, so its help lists the embedded
// providers' flags and none of a visited cluster's or kind's, which only
// run and certify read.
func TestUpHelpListsOnlyUpsFlags(t *testing.T) {
	code, out, errs := run(t, "up", "--help")
	if code != 0 {
		t.Fatalf("up --help: exit %d: %s", code, errs)
	}
	for _, flag := range []string{"--provider", "--cell", "--node", "--out", "--k8s-version", "--bin-dir"} {
		if !strings.Contains(out, flag+" ") {
			t.Errorf("up --help does not list %s:\n%s", flag, out)
		}
	}
	for _, flag := range []string{"--kind-no-driver", "--kind-keep", "--allow-fake-nodes", "--allow-unconfined", "--as-cell", "--kubeconfig", "--context", "--focus"} {
		if strings.Contains(out, flag+" ") {
			t.Errorf("up --help lists %s, a flag of run that up never reads:\n%s", flag, out)
		}
	}
}
