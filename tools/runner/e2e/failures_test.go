package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// logFailures puts the failed cases' own messages at the end of the test's
// output, where a CI log that keeps only its tail still shows them: the
// run's terminal output names each failure on one line and leaves the why
// to files CI may not keep. Failures are grouped by cell, since many in one
// cell point at the cluster rather than at the cases.
func logFailures(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "outcomes.json"))
	if err != nil {
		t.Logf("no outcomes to explain the failure: %v", err)
		return
	}
	var outcomes []report.Outcome
	if err := json.Unmarshal(data, &outcomes); err != nil {
		t.Logf("reading %s: %v", filepath.Join(out, "outcomes.json"), err)
		return
	}
	byCell := map[string][]report.Outcome{}
	for _, o := range outcomes {
		if o.State == report.Failed {
			key := o.Target + "/" + o.Cell
			byCell[key] = append(byCell[key], o)
		}
	}
	cells := make([]string, 0, len(byCell))
	for c := range byCell {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	for _, c := range cells {
		failed := byCell[c]
		t.Logf("%s: %d failed", c, len(failed))
		// The first three say enough; the rest are in outcomes.json.
		for _, o := range failed[:min(3, len(failed))] {
			t.Logf("  %s: %s", o.ID, runner.OneLine(o.Message, 600))
		}
		for _, line := range diagnosticsGist(failed[0].Diagnostics, 8) {
			t.Logf("    %s", runner.OneLine(line, 300))
		}
		if len(failed) >= manyFailures {
			target, cell, _ := strings.Cut(c, "/")
			for _, line := range componentErrors(filepath.Join(out, target), cell, 6) {
				t.Logf("    %s", runner.OneLine(line, 300))
			}
		}
	}
}

// klogError is a klog line of severity error or fatal (E1205 …), or a panic.
var klogError = regexp.MustCompile(`^[EF]\d{4} |panic`)

// manyFailures in one cell point at its cluster rather than at its cases.
const manyFailures = 5

// componentErrors are the last error lines (klog's E and F, and panics) of
// the logs of the cell's control-plane components, in every part of the
// cell, as "file: line".
func componentErrors(dir, cell string, n int) []string {
	var out []string
	for _, comp := range []string{"kube-scheduler", "kube-apiserver", "kube-controller-manager"} {
		logs, _ := filepath.Glob(filepath.Join(dir, cell+"*", comp+".log"))
		for _, path := range logs {
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			var errs []string
			for _, line := range strings.Split(string(data), "\n") {
				if klogError.MatchString(line) {
					errs = append(errs, line)
				}
			}
			rel, _ := filepath.Rel(dir, path)
			for _, line := range errs[max(0, len(errs)-n):] {
				out = append(out, rel+": "+line)
			}
		}
	}
	return out
}

// diagnosticsGist is what a case's diagnostics file says of its pods'
// conditions and its events: the lines that tell a scheduling failure from
// a cluster that stopped answering.
func diagnosticsGist(path string, n int) []string {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return []string{"no diagnostics: " + err.Error()}
	}
	var out []string
	inEvents := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "=====") {
			inEvents = strings.Contains(line, "events")
			continue
		}
		if (inEvents && strings.TrimSpace(line) != "") || strings.Contains(line, "condition PodScheduled") || strings.HasPrefix(line, "pod ") {
			out = append(out, line)
		}
		if len(out) == n {
			break
		}
	}
	return out
}
