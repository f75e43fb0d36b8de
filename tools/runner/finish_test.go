package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
)

// Finish hands report.html the run's facts (id, version, command line,
// when it began, the golden result) and when each case began, and still
// prints the golden table's result after the matrix, as before.
func TestFinishGivesReportHTMLTheRunsFacts(t *testing.T) {
	dir := t.TempDir()
	began := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	k := report.Key{Target: "prototype", Suite: "kep6406-api", Case: "field-stored", Cell: "capacity-on"}
	spec := func(st types.SpecState) types.Report {
		return types.Report{StartTime: began, RunTime: 65 * time.Second, SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeIt, State: st,
			ReportEntries: types.ReportEntries{
				{Name: report.EntryKey, Value: types.WrapEntryValue(k)},
				{Name: report.EntryBegan, Value: types.WrapEntryValue(began.Add(3 * time.Second).Format(time.RFC3339Nano))},
			}}}}
	}
	golden := filepath.Join(dir, "golden.json")
	g := report.Golden{}
	g.Merge(report.Outcomes(spec(types.SpecStatePassed)), nil)
	if err := g.Save(golden); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		state      types.SpecState
		want       string
		errs       int
		terminalAt string
	}{
		{types.SpecStatePassed, "matches " + golden + " (prototype)", 0, "every outcome of prototype matches the golden table"},
		{types.SpecStateFailed, "1 deviation from " + golden, 1, ""},
	} {
		var log bytes.Buffer
		opts := Options{OutDir: dir, RunID: "r-facts", Log: &log, Golden: golden, Version: "draconform v9 (go1.26.8)",
			Command: []string{"/tmp/go-build1/exe/draconform", "run", "--suite", "kep6406-api"}}
		if errs := Finish(opts, spec(c.state), nil, ""); len(errs) != c.errs {
			t.Errorf("%s: errors %v, want %d", c.state, errs, c.errs)
		}
		data, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		page := string(data)
		for _, want := range []string{"<td>r-facts</td>", "<td>draconform v9 (go1.26.8)</td>", "<td>draconform run --suite kep6406-api</td>",
			"<td>2026-12-05 20:00:00 UTC</td>", "<td>1m 05s</td>", "golden.json", `class="case `} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: report.html lacks %q", c.state, want)
			}
		}
		if !strings.Contains(page, "<td>"+strings.ReplaceAll(c.want, dir+"/", "")+"</td>") || strings.Contains(page, dir) {
			t.Errorf("%s: report.html's golden result is not %q, relative", c.state, c.want)
		}
		if c.terminalAt != "" && strings.Index(log.String(), c.terminalAt) < strings.Index(log.String(), "reports:") {
			t.Errorf("the golden result is no longer printed after the matrix:\n%s", log.String())
		}
	}
}
