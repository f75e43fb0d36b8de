package usecase

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
)

// writeRun lays out what a run leaves in its folder: ginkgo's report and
// the verdicts.
func writeRun(t *testing.T, r types.Report, vs []report.Verdict) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range map[string]any{report.JSONFile: []types.Report{r}, report.VerdictsFile: vs} {
		data, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A run certifies only when it is whole: not interrupted, its set-up and
// tear-down passed, and every case of the claim has an outcome. A failed
// case is no such problem: the claim's verdict says what it means.
func TestOnlyAWholeRunCertifies(t *testing.T) {
	failedCase := types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStateFailed, Failure: types.Failure{Message: "a case failed"}}
	conformant := []report.Verdict{{Claim: "c", Target: "impl", State: report.Conformant}, {Claim: "d", Target: "impl", State: report.NotConformant}}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name     string
		ctx      context.Context
		report   types.Report
		verdicts []report.Verdict
		says     string
	}{
		{"whole, with another claim's case failing", context.Background(), types.Report{SpecReports: types.SpecReports{failedCase}}, conformant, ""},
		{"interrupted", canceled, types.Report{}, conformant, "the run was interrupted"},
		{"ginkgo's own failure", context.Background(), types.Report{SpecialSuiteFailureReasons: []string{"Interrupted by User"}}, conformant, "the run did not finish cleanly: Interrupted by User"},
		{"a tear-down that failed", context.Background(), types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeSynchronizedAfterSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "stopping the cluster: boom\nmore"}}}},
			conformant, "SynchronizedAfterSuite failed: stopping the cluster: boom"},
		{"a case with no outcome", context.Background(), types.Report{}, []report.Verdict{{Claim: "c", Target: "impl", State: report.NotConformant, Blocking: []string{"s/a@on " + report.NoOutcome + ": the run ended"}}},
			"the run did not finish: s/a@on has no outcome"},
		{"no verdict of the claim", context.Background(), types.Report{}, conformant[1:], "the run gave 0 verdicts of c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := certifiedVerdict(tt.ctx, writeRun(t, tt.report, tt.verdicts), "c")
			switch {
			case tt.says == "" && (err != nil || v.Claim != "c" || v.State != report.Conformant):
				t.Errorf("got %+v, %v; want c conformant", v, err)
			case tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says)):
				t.Errorf("got %+v, %v; want an error saying %q", v, err, tt.says)
			}
		})
	}
}
