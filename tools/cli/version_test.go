package cli

import (
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
)

func TestVersionNamesTheSpecsDigest(t *testing.T) {
	want, err := loader.Digest(suites.FS, fixtures.FS)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "version")
	if code != 0 || !strings.Contains(out, "sha256:"+want) || !strings.HasPrefix(out, "draconform ") {
		t.Errorf("version: code %d, out %q, err %q; want the digest %s", code, out, errs, want)
	}
	if code, out, _ := run(t, "--version"); code != 0 || !strings.Contains(out, want) {
		t.Errorf("--version: code %d, out %q", code, out)
	}
}

// The command line is cobra's: completion scripts, and a refused flag is a
// usage error (2) that names the verb, never a run.
func TestCommandLine(t *testing.T) {
	code, out, _ := run(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "__start_draconform") {
		t.Errorf("completion bash: code %d, %d bytes", code, len(out))
	}
	code, _, errs := run(t, "run", "--no-such-flag")
	if code != 2 || !strings.Contains(errs, "draconform run: unknown flag: --no-such-flag") {
		t.Errorf("run --no-such-flag: code %d, stderr %q", code, errs)
	}
	code, out, _ = run(t, "run", "--help")
	if code != 0 || !strings.Contains(out, "--provider string") || !strings.Contains(out, "-v, --verbose") {
		t.Errorf("run --help: code %d, out %q", code, out)
	}
	code, _, errs = run(t, "engine")
	if code != 2 || !strings.Contains(errs, "usage: draconform engine") {
		t.Errorf("engine with no subcommand: code %d, stderr %q", code, errs)
	}
}
