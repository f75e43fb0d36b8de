package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
)

// A claim that is not conformant fails the command, whose name the refusal
// carries: merge --bundle printed "draconform certify: …" before.
func TestPrintVerdictNamesItsCommand(t *testing.T) {
	for _, cmd := range []string{"certify", "merge"} {
		var out, errb bytes.Buffer
		v := report.Verdict{Claim: "kep6406-gates-on", Target: "prototype", State: report.NotConformant, Reason: "1 required case failed"}
		if code := printVerdict(cmd, v, "/b", "draconform verify-bundle /b", Streams{Out: &out, Err: &errb}); code != 1 {
			t.Errorf("%s: exit %d for a claim not conformant, want 1", cmd, code)
		}
		if want := "draconform " + cmd + ": kep6406-gates-on is not conformant"; !strings.Contains(errb.String(), want) {
			t.Errorf("%s: stderr %q lacks %q", cmd, errb.String(), want)
		}
		v.State = report.Conformant
		errb.Reset()
		if code := printVerdict(cmd, v, "/b", "check", Streams{Out: &out, Err: &errb}); code != 0 || errb.Len() > 0 {
			t.Errorf("%s: a conformant claim gave exit %d and %q", cmd, code, errb.String())
		}
	}
}
