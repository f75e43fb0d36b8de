package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

func TestQuantileAndMedian(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if got := Median(xs); got != 3 {
		t.Errorf("Median = %v, want 3", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median of an even count = %v, want 2.5", got)
	}
	if got := Quantile(xs, 0.9); got != 5 {
		t.Errorf("p90 = %v, want 5", got)
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("quantile of nothing = %v, want 0", got)
	}
	if xs[0] != 5 {
		t.Error("Median sorted its argument in place")
	}
}

func TestDownsampleAveragesEachStep(t *testing.T) {
	s := []Sample{{At: 1 * time.Second, Busy: 1}, {At: 2 * time.Second, Busy: 0}, {At: 3 * time.Second, Busy: 0.5}, {At: 9 * time.Second, Busy: 1}}
	got := Downsample(s, 2*time.Second)
	want := []float64{0.5, 0.5, 0.5, 0.5, 1}
	if len(got) != len(want) {
		t.Fatalf("Downsample = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Downsample = %v, want %v", got, want)
		}
	}
}

// A run folder as a sharded run leaves it: timings and ginkgo's report.
func writeRun(t *testing.T, began time.Time) string {
	t.Helper()
	dir := t.TempDir()
	tm := runner.RunTimings{Began: began, Parallel: 4, Cells: []runner.CellTiming{
		{Target: "local", Cell: "a", StartSeconds: 4, FirstCase: began.Add(5 * time.Second), Scheduler: &cluster.Latency{Pods: 10, Seconds: 0.5}},
		{Target: "local", Cell: "b", StartSeconds: 6, NodeSeconds: 2, FirstCase: began.Add(7 * time.Second), Scheduler: &cluster.Latency{Pods: 10, Seconds: 1.5}},
	}}
	data, _ := json.Marshal(tm)
	if err := os.WriteFile(filepath.Join(dir, runner.TimingsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(secs float64, serial bool, measurements ...string) types.SpecReport {
		sp := types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, RunTime: time.Duration(secs * float64(time.Second)), IsSerial: serial}
		for _, m := range measurements {
			sp.ReportEntries = append(sp.ReportEntries, types.ReportEntry{Name: report.EntryMeasurement, Value: types.WrapEntryValue(m)})
		}
		return sp
	}
	rep := types.Report{SpecReports: types.SpecReports{
		spec(0.2, false), spec(0.4, false), spec(3, false), spec(0.3, false, "scheduling attempts for pod p over 5s: 2"),
		spec(12, true, "restart: kube-apiserver with gates {DRAExtendedResourceCapacity=false} ready in 4.50s", "restart: kube-apiserver back to the cell's gates {} ready in 3.50s"),
		{LeafNodeType: types.NodeTypeIt, State: types.SpecStateSkipped},
	}}
	data, _ = json.Marshal([]types.Report{rep})
	if err := os.WriteFile(filepath.Join(dir, report.JSONFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadRunFindsWhereTheTimeWent(t *testing.T) {
	began := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	dir := writeRun(t, began.Add(time.Second))
	r, err := ReadRun(dir, began, 30*time.Second, []Sample{{At: time.Second, Busy: 0.5, CPUSeconds: 1, RSS: 100}, {At: 3 * time.Second, Busy: 1, CPUSeconds: 4, RSS: 300}})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstCaseSeconds != 6 {
		t.Errorf("first case at %vs, want 6 (the earliest cell's, from the command's start)", r.FirstCaseSeconds)
	}
	if r.Cases != 5 {
		t.Errorf("cases = %d, want 5 (the skipped one is no case that ran)", r.Cases)
	}
	if r.CaseMedian != 0.35 && r.CaseMedian != 0.3 {
		t.Errorf("median plain case %v, want the median of 0.2, 0.3, 0.4, 3 without the restart case", r.CaseMedian)
	}
	if r.SchedulerPerPod != 0.1 {
		t.Errorf("scheduler per pod %v, want 2 s over 20 pods", r.SchedulerPerPod)
	}
	if len(r.Restarts) != 2 || r.Restarts[0].Component != "kube-apiserver" || r.Restarts[0].Seconds != 4.5 {
		t.Errorf("restarts = %+v, want the two measured", r.Restarts)
	}
	if len(r.RestartCases) != 1 || r.RestartCases[0] != 12 {
		t.Errorf("restart cases = %v, want [12]", r.RestartCases)
	}
	if r.PeakRSS != 300 || r.MeanBusy != 0.75 {
		t.Errorf("peak %d, busy %v; want 300 and 0.75", r.PeakRSS, r.MeanBusy)
	}
	// Half of two cores for the first second, both for the next two.
	if want := 5.0; r.BusyCPUSeconds != want {
		t.Errorf("busy CPU %v s, want %v", r.BusyCPUSeconds, want)
	}
	if r.Parallel != 4 || len(r.CellStart) != 2 || r.CellStart[1].NodeSeconds != 2 {
		t.Errorf("parallel %d, cell starts %+v", r.Parallel, r.CellStart)
	}
}

func TestReadRunWithoutTimingsSaysSo(t *testing.T) {
	if _, err := ReadRun(t.TempDir(), time.Now(), time.Second, nil); err == nil || !strings.Contains(err.Error(), runner.TimingsFile) {
		t.Errorf("want an error naming %s, got %v", runner.TimingsFile, err)
	}
}

func TestMarkdownComparesWithThePreviousFigures(t *testing.T) {
	old := &Warm{Date: "2026-12-01", Commit: "aaa", Runs: []Run{{WallSeconds: 200, Golden: true}}}
	now := &Warm{Date: "2026-12-02", Commit: "bbb", Runs: []Run{{WallSeconds: 50, Golden: true}, {WallSeconds: 40, Golden: true}, {WallSeconds: 70, Golden: true}}}
	res := Results{}.With("2 cores", old, nil).With("2 cores", now, nil)
	md := Markdown(res)
	for _, want := range []string{"| wall time of the matrix | 50.0 s | 200.0 s |", "commit aaa", "every run's outcomes matched the golden table"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	now.Runs[1].Golden = false
	if md := Markdown(Results{Warm: now}); !strings.Contains(md, "did not match the golden table") {
		t.Errorf("a run that missed the golden table is not flagged:\n%s", md)
	}
}

// Several runs get a table of each; one run's line says what that table
// would, rather than a table of one row repeating the medians.
func TestMarkdownListsEachRunOnlyWhenThereAreSeveral(t *testing.T) {
	one := Run{WallSeconds: 50, Golden: true, Cases: 176, Parallel: 4, MeanBusy: 0.94}
	md := Markdown(Results{Warm: &Warm{Date: "2026-12-02", Commit: "bbb", Runs: []Run{one}}})
	if strings.Contains(md, "### Each run") || !strings.Contains(md, "1 run: 176 cases, 4 cells at once, the CPU 94% busy; every run's outcomes matched") {
		t.Errorf("one run:\n%s", md)
	}
	md = Markdown(Results{Warm: &Warm{Date: "2026-12-02", Commit: "bbb", Runs: []Run{one, one}}})
	if !strings.Contains(md, "### Each run") || !strings.Contains(md, "| 2 | 50.0 s |") || !strings.Contains(md, ", 2 runs; every run's") {
		t.Errorf("two runs:\n%s", md)
	}
}

// The median run's CPU is shown by program, the most costly first, the
// rest on one row, beside the machine's busy time.
func TestMarkdownShowsTheCPUByProgram(t *testing.T) {
	run := Run{WallSeconds: 100, Golden: true, BusyCPUSeconds: 200}
	for i := range shownPrograms + 2 {
		run.Programs = append(run.Programs, ProgramCPU{Program: fmt.Sprintf("prog%02d", i), Processes: 2, Seconds: float64(100 - 5*i)})
	}
	md := Markdown(Results{Warm: &Warm{Date: "2026-12-04", Commit: "ddd", Runs: []Run{run}}})
	for _, want := range []string{
		"| prog00 | 2 | 100 CPU-s | 50% |",
		"| prog09 | 2 | 55 CPU-s | 28% |",
		"| 2 other programs | 4 | 95 CPU-s | 48% |",
		"| all of them | | 870 CPU-s | 435% |",
		"| the machine busy, both cores | | 200 CPU-s | 100% |",
		"| CPU time the machine was busy, both cores | 200 CPU-s |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| prog10 |") {
		t.Errorf("the Markdown names more than %d programs:\n%s", shownPrograms, md)
	}
}

// A cold run between two warm ones leaves the warm figures compared with
// the warm run before them, and the other way round.
func TestEachKindKeepsItsOwnPreviousFigures(t *testing.T) {
	warm1 := &Warm{Date: "2026-12-01", Commit: "aaa", Runs: []Run{{WallSeconds: 200, Golden: true}}}
	warm2 := &Warm{Date: "2026-12-02", Commit: "bbb", Runs: []Run{{WallSeconds: 100, Golden: true}}}
	cold1 := &Cold{Date: "2026-12-01", Commit: "aaa", Seconds: 1900}
	cold2 := &Cold{Date: "2026-12-03", Commit: "ccc", Seconds: 1400}
	res := Results{}.With("m", warm1, nil).With("m", nil, cold1).With("m", warm2, nil).With("m", nil, cold2)
	if p := prevWarm(res); p == nil || p.Commit != "aaa" {
		t.Errorf("after a cold run the warm figures compare with %+v, want the warm run at aaa", p)
	}
	if p := prevCold(res); p == nil || p.Commit != "aaa" {
		t.Errorf("the cold figures compare with %+v, want the cold run at aaa", p)
	}
	if md := Markdown(res); !strings.Contains(md, "| wall time of the matrix | 100.0 s | 200.0 s |") {
		t.Errorf("the warm table lost its comparison:\n%s", md)
	}
}

// Each step of a cold run is given the CPU of the samples since the step
// reached before it, whatever order the milestones were found in.
func TestColdStepsGetTheirCPU(t *testing.T) {
	// Two cores, a sample each 2 s.
	samples := []Sample{{At: 2 * time.Second, Busy: 1, CPUSeconds: 4}, {At: 4 * time.Second, Busy: 0.5, CPUSeconds: 2}, {At: 6 * time.Second, Busy: 0.25, CPUSeconds: 1}, {At: 8 * time.Second, Busy: 1, CPUSeconds: 4}}
	ms := WithCPU([]Milestone{{What: "last", Seconds: 8}, {What: "first", Seconds: 4}, {What: "middle", Seconds: 6}}, samples)
	want := []Milestone{{What: "first", Seconds: 4, CPUSeconds: 6}, {What: "middle", Seconds: 6, CPUSeconds: 1}, {What: "last", Seconds: 8, CPUSeconds: 4}}
	if !slices.Equal(ms, want) {
		t.Errorf("WithCPU = %+v, want %+v", ms, want)
	}
	md := Markdown(Results{Cold: &Cold{Date: "2026-12-04", Commit: "eee", Seconds: 8, Milestones: ms}})
	if !strings.Contains(md, "| 0:06 | middle | 1 CPU-s |") {
		t.Errorf("the cold table lacks the CPU of each step:\n%s", md)
	}
}

// The cold run shows its milestones once, in the table, and its CPU over
// time as a chart.
func TestColdShowsCPUOverTimeWithMilestones(t *testing.T) {
	c := &Cold{Date: "2026-12-02", Commit: "ccc", Command: "make conformance", Seconds: 65, Golden: true, CPUStep: 20,
		CPU: []float64{0.5, 1, 1, 0.25}, Milestones: []Milestone{{What: "vanilla built", Seconds: 30}}}
	md := Markdown(Results{Cold: c})
	for _, want := range []string{"First result in 1:05", "| 0:30 | vanilla built |", "0:20 100% " + strings.Repeat("█", 40) + "\n", "0:00  50% "} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "vanilla built") != 1 {
		t.Errorf("a milestone is shown twice:\n%s", md)
	}
}

func TestTreeRSSCountsThisProcess(t *testing.T) {
	if rss := treeRSS(readProcs(), os.Getpid()); rss <= 0 {
		t.Errorf("treeRSS of this test process = %d, want > 0", rss)
	}
}

// A process started after the sampler is counted under its program with
// the CPU it used; the processes that ran before, this test's among them,
// are not.
func TestSamplerCountsTheCPUOfNewProcessesByProgram(t *testing.T) {
	sm := Sampler{Interval: 50 * time.Millisecond}
	sm.Start(os.Getpid())
	stopped := false
	defer func() {
		if !stopped {
			sm.Stop()
		}
	}()
	// A shell that spins until told to stop: its CPU time grows while the
	// test waits for the sampler to see it. The sampler counts the whole
	// machine, and go test runs other packages beside this one, whose
	// shells would count under "sh": the spinner runs under a name of its
	// own (a copy of sh; the kernel keeps 15 characters of it).
	dir := t.TempDir()
	prog := fmt.Sprintf("spin%d", os.Getpid()%1000000)
	shell := filepath.Join(dir, prog)
	copyExecutable(t, "/bin/sh", shell)
	flag := filepath.Join(dir, "stop")
	cmd := exec.Command(shell, "-c", `while [ ! -e "$0" ]; do :; done`, flag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var got []ProgramCPU
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got = sm.Programs()
		if i := slices.IndexFunc(got, func(p ProgramCPU) bool { return p.Program == prog }); i >= 0 && got[i].Seconds >= 0.05 {
			break
		}
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	samples := sm.Stop()
	stopped = true
	// The machine was busy at least as long as the shell ran.
	var busy float64
	for _, sm := range samples {
		busy += sm.CPUSeconds
	}
	i := slices.IndexFunc(got, func(p ProgramCPU) bool { return p.Program == prog })
	if i >= 0 && busy < got[i].Seconds {
		t.Errorf("the samples count %.2f CPU-s of busy machine, less than the shell's own %.2f", busy, got[i].Seconds)
	}
	if i < 0 || got[i].Processes != 1 || got[i].Seconds < 0.05 {
		t.Errorf("Programs = %+v; want the spinning %s, one process, with its CPU time", got, prog)
	}
	self := filepath.Base(os.Args[0])
	for _, p := range got {
		if len(self) > 15 {
			self = self[:15]
		}
		if p.Program == self {
			t.Errorf("Programs counts %q, which ran before the sampler started: %+v", self, got)
		}
	}
}

// copyExecutable copies the program at from to to, runnable.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatalf("reading the shell to copy: %v", err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatalf("copying the shell: %v", err)
	}
}

// A ratio is compared with the previous record's only when both measured
// the same work: a vendor path on another cell and claim is named, not
// flagged as worse.
func TestRatiosOfOtherWorkAreNotCompared(t *testing.T) {
	ratio := func(v float64) *SpeedRatio { return &SpeedRatio{Samples: []Pair{{Num: v, Den: 1}}} }
	prev := &Ratios{VendorPath: "local/defaults, claim feature-absent-safe", Vendor: ratio(5), Start: ratio(1.2)}
	now := &Ratios{VendorPath: "prototype/capacity-on, claim kep6406-gates-on", Vendor: ratio(40), Start: ratio(2)}
	now.Flag(prev)
	if len(now.Worse) != 1 || !strings.HasPrefix(now.Worse[0], "start:") {
		t.Errorf("Worse = %q; want the start ratio alone", now.Worse)
	}
	if len(now.Uncompared) != 1 || !strings.Contains(now.Uncompared[0], "vendor: the previous record measured other work (local/defaults") {
		t.Errorf("Uncompared = %q; want the vendor ratio, naming the previous work", now.Uncompared)
	}
	now.VendorPath = prev.VendorPath
	now.Flag(prev)
	if len(now.Worse) != 2 || len(now.Uncompared) != 0 {
		t.Errorf("on the same work: Worse = %q, Uncompared = %q; want start and vendor worse", now.Worse, now.Uncompared)
	}
}

// A cell that started no cluster (its start under a millisecond) is named
// once, not given a 0 ms row, a node that did not start shows as "-", and
// a long cold run's chart is averaged down to at most chartRows rows.
func TestMarkdownLeavesOutWhatDidNotRun(t *testing.T) {
	run := Run{WallSeconds: 10, Golden: true, CellStart: []CellStart{{Cell: "local/defaults", Seconds: 3, NodeSeconds: 0.00004},
		{Cell: "local/capacity-on", Seconds: 0.00006}, {Cell: "local/capacity-off"}}}
	md := Markdown(Results{Warm: &Warm{Date: "2026-12-04", Commit: "ddd", Runs: []Run{run}}})
	if strings.Contains(md, "| local/capacity-on |") || !strings.Contains(md, "2 cells started no cluster (the provider cannot run them): local/capacity-on, local/capacity-off.") {
		t.Errorf("a cell that did not start is shown as a row:\n%s", md)
	}
	if !strings.Contains(md, "| local/defaults | 3.0 s | - |") {
		t.Errorf("a node that did not start is not shown as -:\n%s", md)
	}
	c := &Cold{Date: "2026-12-02", Commit: "ccc", Seconds: 1200, CPUStep: 20, CPU: make([]float64, 60)}
	md = Markdown(Results{Cold: c})
	if !strings.Contains(md, "one row per 100 s") || strings.Count(md, "% ") > chartRows {
		t.Errorf("the chart is not averaged to at most %d rows:\n%s", chartRows, md)
	}
}

// Ratios not compared for one reason share a line, and the page leaves
// each sample to bench.json, saying how many there are.
func TestRatiosSayAReasonOnceAndLeaveSamplesToTheRecord(t *testing.T) {
	x := &SpeedRatio{Note: "n", Samples: []Pair{{Num: 2, Den: 1}, {Num: 3, Den: 1}}}
	var b strings.Builder
	ratiosMarkdown(&b, Ratios{Date: "d", Commit: "c", Case: x, Start: x,
		Uncompared: []string{"case: other work (a)", "start: other work (a)", "vendor: not measured"}}, nil)
	md := b.String()
	for _, want := range []string{"- case, start: other work (a)\n- vendor: not measured\n", "| 2 | -"} {
		if !strings.Contains(md, want) {
			t.Errorf("ratios lack %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "2.0 s / 1.0 s") {
		t.Errorf("ratios list their samples:\n%s", md)
	}
}
