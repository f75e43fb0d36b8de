package bench

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

func TestRatioIsTheMedianOfItsSamplesAndItsNoiseHalfTheirSpread(t *testing.T) {
	r := SpeedRatio{Samples: []Pair{{Num: 6, Den: 2}, {Num: 10, Den: 2}, {Num: 4, Den: 1}, {Num: 1, Den: 0}}}
	// 3×, 5×, 4×; the sample without a denominator is no ratio.
	if got := r.Value(); !near(got, 4) {
		t.Errorf("value %v, want 4 (the median of 3, 5, 4)", got)
	}
	if got := r.Noise(); !near(got, 1) {
		t.Errorf("noise %v, want 1 (half of 5 - 3)", got)
	}
	if got := (SpeedRatio{Samples: []Pair{{Num: 3, Den: 1}}}).Noise(); got != 0 {
		t.Errorf("noise of one sample %v, want 0", got)
	}
}

// ratioOf is a ratio whose samples are the given values over 1 s.
func ratioOf(vs ...float64) *SpeedRatio {
	r := &SpeedRatio{}
	for _, v := range vs {
		r.Samples = append(r.Samples, Pair{Num: v, Den: 1})
	}
	return r
}

func TestARatioWorseByMoreThanItsNoiseIsFlaggedBetweenTwoRecords(t *testing.T) {
	before := &Ratios{Case: ratioOf(1.9, 2.1), Start: ratioOf(1.2, 1.4), Vendor: ratioOf(3)}
	now := &Ratios{Case: ratioOf(2.4, 2.6), Start: ratioOf(1.3, 1.4), Vendor: ratioOf(2)}
	res := Results{Ratios: before}.WithRatios("m", now)
	if len(res.Ratios.Worse) != 1 || !strings.HasPrefix(res.Ratios.Worse[0], "case: 2.50× now, 2.00× before") {
		t.Fatalf("worsened %q, want the case ratio alone: 2.5 against 2.0 is past ±0.1; start grew 0.05, within its ±0.1; vendor improved", res.Ratios.Worse)
	}
	if res.Previous == nil || res.Previous.Ratios != before {
		t.Errorf("the previous ratios are not kept for the next comparison")
	}
	if md := Markdown(res); !strings.Contains(md, "Worse than the previous record") || !strings.Contains(md, "- case: 2.50× now") {
		t.Errorf("the record does not show the flag:\n%s", md)
	}
	// The same growth within a wide noise is no worsening.
	if Worsened(ratioOf(2.4, 2.6), ratioOf(1, 3)) {
		t.Errorf("2.5× against 2× with a noise of ±1 flagged")
	}
	again := Results{Ratios: now}.WithRatios("m", &Ratios{Case: ratioOf(2.4, 2.6)})
	if len(again.Ratios.Worse) != 0 {
		t.Errorf("an unchanged ratio flagged: %q", again.Ratios.Worse)
	}
}

func TestWarmFiguresThenRatiosKeepBothPrevious(t *testing.T) {
	oldWarm := &Warm{Date: "old", Runs: []Run{{WallSeconds: 1}}}
	oldRatios := &Ratios{Case: ratioOf(2)}
	r := Results{Warm: oldWarm, Ratios: oldRatios}
	res := r.With("m", &Warm{Date: "new", Runs: []Run{{WallSeconds: 2}}}, nil).WithRatios("m", &Ratios{Case: ratioOf(3)})
	if res.Previous.Warm != oldWarm || res.Previous.Ratios != oldRatios {
		t.Errorf("previous warm %v, ratios %v: want the replaced ones", res.Previous.Warm, res.Previous.Ratios)
	}
	if len(res.Ratios.Worse) != 1 {
		t.Errorf("3× after 2× with no noise not flagged")
	}
}

func TestCaseRatioLeavesHoldsOutAndSplitsTheRest(t *testing.T) {
	runs := []Run{
		// 2 cases, 4 pods, 10 s of which 2 s holds: 4 s a case against
		// 2 pods × 0.5 s.
		{SchedulerPerPod: 0.5, PodCases: PodCases{Cases: 2, Pods: 4, Seconds: 10, Parts: map[string]float64{
			runner.PhaseHolds: 2, runner.PhaseNamespace: 1, runner.PhaseWatchSetup: 0.6, runner.PhaseWaiting: 2, runner.PhaseBarriers: 1, runner.PhaseCleanup: 0.4}}},
		{SchedulerPerPod: 0.25, PodCases: PodCases{Cases: 1, Pods: 1, Seconds: 2, Parts: map[string]float64{runner.PhaseNamespace: 0.5}}},
		// No scheduler figure: no sample.
		{PodCases: PodCases{Cases: 1, Pods: 1, Seconds: 2}},
	}
	r := CaseRatio(runs)
	if r == nil || len(r.Samples) != 2 {
		t.Fatalf("ratio %+v, want two samples", r)
	}
	if s := r.Samples[0]; !near(s.Num, 4) || !near(s.Den, 1) {
		t.Errorf("first run's sample %+v, want 4 s against 1 s", s)
	}
	if s := r.Samples[1]; !near(s.Num, 2) || !near(s.Den, 0.25) {
		t.Errorf("second run's sample %+v, want 2 s against 0.25 s", s)
	}
	if !near(r.Value(), 6) {
		t.Errorf("value %v, want 6 (the median of 4× and 8×)", r.Value())
	}
	parts := map[string]float64{}
	for _, p := range r.Parts {
		parts[p.What] = p.Seconds
	}
	// The rest of the first run: 4 - (0.5 + 0.3 + 1 + 0.5 + 0.2) = 1.5;
	// of the second: 2 - 0.5 = 1.5.
	if !near(parts[partRest], 1.5) || !near(parts[runner.PhaseNamespace], 0.5) || !near(parts[partHolds], 0.5) {
		t.Errorf("parts %v", parts)
	}
	if CaseRatio([]Run{{SchedulerPerPod: 1}}) != nil {
		t.Errorf("a ratio without cases that wrote pods")
	}
}

func specWithPhases(secs float64, began time.Time, ph runner.CasePhases) types.SpecReport {
	data, _ := json.Marshal(ph)
	return types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, ReportEntries: types.ReportEntries{
		{Name: report.EntrySeconds, Value: types.WrapEntryValue(secs)},
		{Name: report.EntryBegan, Value: types.WrapEntryValue(began.Format(time.RFC3339Nano))},
		{Name: runner.EntryPhases, Value: types.WrapEntryValue(string(data))},
	}}
}

func TestPodCasesCountOnlyCasesThatWrotePods(t *testing.T) {
	var pc PodCases
	pc.add(specWithPhases(3, time.Now(), runner.CasePhases{Pods: 2, Seconds: map[string]float64{runner.PhaseWaiting: 1}}))
	pc.add(specWithPhases(5, time.Now(), runner.CasePhases{Seconds: map[string]float64{runner.PhaseWaiting: 4}}))
	pc.add(types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed})
	if pc.Cases != 1 || pc.Pods != 2 || pc.Seconds != 3 || pc.Parts[runner.PhaseWaiting] != 1 {
		t.Errorf("pod cases %+v, want the first case alone", pc)
	}
}

func TestCellStartPartsFromTheProvidersLog(t *testing.T) {
	lines := []TimedLine{
		{Text: "local: etcd ready in 1.5s (cell defaults)"},
		{Text: "local: kube-apiserver ready in 6.0s (cell defaults)"},
		{Text: "local: kube-scheduler ready in 1.2s (cell defaults)"},
		{Text: "local: kube-controller-manager ready in 3.0s (cell defaults)"},
		{Text: "local: default service account after 0.5s (cell defaults)"},
	}
	p := CellStartParts(lines, 12)
	if p["etcd"] != 1.5 || p["kube-apiserver"] != 6 || p[cellStartParts[2]] != 3 || p["the default ServiceAccount"] != 0.5 || !near(p[partRest], 1) {
		t.Errorf("parts %v; want etcd 1.5, apiserver 6, the slower client 3, SA 0.5, rest 1", p)
	}
}

func TestVendorRatiosPerCase(t *testing.T) {
	began := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	rep := types.Report{SpecReports: types.SpecReports{
		specWithPhases(2, began.Add(5*time.Second), runner.CasePhases{Seconds: map[string]float64{runner.PhaseNamespace: 0.2, runner.PhaseCleanup: 0.1}}),
		specWithPhases(4, began.Add(6*time.Second), runner.CasePhases{Seconds: map[string]float64{runner.PhaseNamespace: 0.4, runner.PhaseCleanup: 0.1}}),
	}}
	// certify took 20 s; its cases ran from 5 s to 10 s of it.
	c := CertifiedOf(Certified{Seconds: 20}, []types.Report{rep})
	if c.Cases != 2 || !near(c.Span, 5) || !near(c.Namespace, 0.3) || !near(c.Cleanup, 0.1) {
		t.Fatalf("certified %+v", c)
	}
	peer := []E2ETest{{Create: 0.1, WaitSA: 0.3, Delete: 0.1}, {Create: 0.1, WaitSA: 0.1, Delete: 0.05}}
	vendor, overhead := VendorRatios(c, peer, []E2ETest{{Create: 0.1, WaitSA: 5, Delete: 0.1}})
	// 10 s a case against 0.5 s and 0.25 s: 20× and 40×.
	if !near(vendor.Value(), 30) || !near(vendor.Noise(), 10) {
		t.Errorf("vendor %v ±%v, want 30 ±10", vendor.Value(), vendor.Noise())
	}
	// 0.4 s a case against the same.
	if !near(overhead.Value(), 1.2) {
		t.Errorf("overhead %v, want 1.2 (the median of 0.8 and 1.6)", overhead.Value())
	}
	if vendor.Parts[1].What != "outside the cases: probe, plan, verdict, bundle" || !near(vendor.Parts[1].Seconds, 7.5) {
		t.Errorf("parts %+v, want 15 s outside the cases, 7.5 s a case", vendor.Parts)
	}
	if !strings.Contains(vendor.Note, "one test took 5.2 s") {
		t.Errorf("note %q does not give the framework's default polling", vendor.Note)
	}
}

func TestARatioAboveItsGoalSaysWhatStandsInTheWay(t *testing.T) {
	r := Ratios{Case: &SpeedRatio{Goal: 2, Samples: []Pair{{Num: 3, Den: 1}}, Parts: []Part{{"namespace", 0.5}, {"the rest", 2}, {"barriers", 0}, {partHolds, 9}}}}
	md := Markdown(Results{Ratios: &r})
	if !strings.Contains(md, "Above its goal of 2.0×: what stands in the way, largest first: the rest 2.0 s, namespace 500 ms.") {
		t.Errorf("no parts, largest first, for a ratio above its goal:\n%s", md)
	}
	r.Case.Samples[0].Num = 1.5
	if strings.Contains(Markdown(Results{Ratios: &r}), "Above its goal") {
		t.Errorf("a ratio within its goal said to be above it")
	}
}

// Two ratios measured against the same other side say it once: the second
// names the first instead of repeating its note and parts.
func TestRatiosAgainstTheSameSideSayItOnce(t *testing.T) {
	side := []Part{{What: "wait", Seconds: 0.1}}
	r := Ratios{
		Vendor:   &SpeedRatio{Samples: []Pair{{Num: 1, Den: 0.2}}, Parts: []Part{{What: "cases", Seconds: 1}}, Floor: side, Note: "certify against the framework's test: a long description"},
		Overhead: &SpeedRatio{Samples: []Pair{{Num: 0.5, Den: 0.2}}, Parts: []Part{{What: "clean-up", Seconds: 0.5}}, Floor: side, Note: "a case's namespace against the framework's test: a long description"},
	}
	var b strings.Builder
	ratiosMarkdown(&b, r, nil)
	md := b.String()
	if n := strings.Count(md, "a long description"); n != 1 {
		t.Errorf("the other side's description is said %d times, want 1:\n%s", n, md)
	}
	for _, want := range []string{"a case's namespace against the same as vendor.", "The other side: as for vendor."} {
		if !strings.Contains(md, want) {
			t.Errorf("page lacks %q:\n%s", want, md)
		}
	}
}
