package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Markdown renders results as docs/bench.md.
func Markdown(r Results) string {
	var b strings.Builder
	b.WriteString("# draconform benchmarks\n\n")
	b.WriteString("For: maintainers tracking draconform's own speed.\n\n")
	b.WriteString("Rendered from docs/bench.json, which the `make` target in each heading writes. Figures, not assertions: nothing fails on a slow machine.\n\n")
	fmt.Fprintf(&b, "Machine: %s.\n\n", r.Machine)
	if r.Ratios != nil {
		var prev *Ratios
		if r.Previous != nil {
			prev = r.Previous.Ratios
		}
		ratiosMarkdown(&b, *r.Ratios, prev)
	}
	if r.Warm != nil {
		warm(&b, *r.Warm, prevWarm(r))
	}
	if r.Cold != nil {
		cold(&b, *r.Cold, prevCold(r))
	}
	if r.SchedCost != nil {
		schedCost(&b, *r.SchedCost)
	}
	return b.String()
}

func prevWarm(r Results) *Warm {
	if r.Previous == nil || r.Previous.Warm == nil || r.Warm == nil || r.Previous.Warm.Date == r.Warm.Date && r.Previous.Warm.Commit == r.Warm.Commit {
		return nil
	}
	return r.Previous.Warm
}

func prevCold(r Results) *Cold {
	if r.Previous == nil || r.Previous.Cold == nil || r.Cold == nil || r.Previous.Cold.Date == r.Cold.Date && r.Previous.Cold.Commit == r.Cold.Commit {
		return nil
	}
	return r.Previous.Cold
}

// WarmSummary is the warm figures docs/figures.md quotes.
type WarmSummary struct {
	Runs                     int
	Wall, FirstCase          float64
	CellStartMedian, CellMax float64
	CaseMedian, CaseP90      float64
	SchedulerPerPod, Ratio   float64
	RestartMedian            float64
	BusyCPU                  float64 // 0 where the runs did not measure it
	PeakRSS                  int64
	AllGolden                bool
}

// Summarize reduces warm runs to medians.
func Summarize(w Warm) WarmSummary {
	var s WarmSummary
	s.Runs = len(w.Runs)
	s.AllGolden = len(w.Runs) > 0
	var walls, firsts, cases, p90s, sched, restarts, starts, busy []float64
	for _, r := range w.Runs {
		walls = append(walls, r.WallSeconds)
		firsts = append(firsts, r.FirstCaseSeconds)
		cases = append(cases, r.CaseMedian)
		p90s = append(p90s, r.CaseP90)
		if r.SchedulerPerPod > 0 {
			sched = append(sched, r.SchedulerPerPod)
		}
		for _, rs := range r.Restarts {
			restarts = append(restarts, rs.Seconds)
		}
		for _, c := range r.CellStart {
			starts = append(starts, c.Seconds)
			s.CellMax = max(s.CellMax, c.Seconds)
		}
		if r.BusyCPUSeconds > 0 {
			busy = append(busy, r.BusyCPUSeconds)
		}
		s.PeakRSS = max(s.PeakRSS, r.PeakRSS)
		s.AllGolden = s.AllGolden && r.Golden
	}
	s.Wall, s.FirstCase = Median(walls), Median(firsts)
	s.CellStartMedian = Median(starts)
	s.CaseMedian, s.CaseP90 = Median(cases), Median(p90s)
	s.SchedulerPerPod = Median(sched)
	if s.SchedulerPerPod > 0 {
		s.Ratio = s.CaseMedian / s.SchedulerPerPod
	}
	s.RestartMedian = Median(restarts)
	s.BusyCPU = Median(busy)
	return s
}

func warm(b *strings.Builder, w Warm, prev *Warm) {
	s := Summarize(w)
	runs := fmt.Sprintf("%d runs", s.Runs)
	if s.Runs == 1 {
		// One run's line says what the table of each run would.
		r := w.Runs[0]
		runs = fmt.Sprintf("1 run: %d cases, %d cells at once, the CPU %.0f%% busy", r.Cases, r.Parallel, 100*r.MeanBusy)
	}
	golden := "every run's outcomes matched the golden table"
	if !s.AllGolden {
		golden = "**some run's outcomes did not match the golden table: these figures are of a broken run**"
	}
	fmt.Fprintf(b, "## The matrix, binaries built (`make bench`)\n\n%s, commit %s, `draconform run %s`, %s; %s.\n\n", w.Date, w.Commit, strings.Join(w.Args, " "), runs, golden)
	var p *WarmSummary
	if prev != nil {
		ps := Summarize(*prev)
		p = &ps
		fmt.Fprintf(b, "Compared with the previous figures (%s, commit %s, %d runs).\n\n", prev.Date, prev.Commit, ps.Runs)
	}
	b.WriteString("| median of the runs | now |")
	if p != nil {
		b.WriteString(" before |")
	}
	b.WriteString("\n|---|---|")
	if p != nil {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	row := func(name string, now, before string) {
		fmt.Fprintf(b, "| %s | %s |", name, now)
		if p != nil {
			fmt.Fprintf(b, " %s |", before)
		}
		b.WriteString("\n")
	}
	pv := func(f func(WarmSummary) string) string {
		if p == nil {
			return ""
		}
		return f(*p)
	}
	row("wall time of the matrix", secs(s.Wall), pv(func(x WarmSummary) string { return secs(x.Wall) }))
	row("time to the first case", secs(s.FirstCase), pv(func(x WarmSummary) string { return secs(x.FirstCase) }))
	row("a cell's cluster start (median / slowest)", secs(s.CellStartMedian)+" / "+secs(s.CellMax), pv(func(x WarmSummary) string { return secs(x.CellStartMedian) + " / " + secs(x.CellMax) }))
	row("a case that restarts nothing (median / p90)", secs(s.CaseMedian)+" / "+secs(s.CaseP90), pv(func(x WarmSummary) string { return secs(x.CaseMedian) + " / " + secs(x.CaseP90) }))
	row("the scheduler's own time per pod (queue to bound)", secs(s.SchedulerPerPod), pv(func(x WarmSummary) string { return secs(x.SchedulerPerPod) }))
	row("ratio of the two", fmt.Sprintf("%.0f×", s.Ratio), pv(func(x WarmSummary) string { return fmt.Sprintf("%.0f×", x.Ratio) }))
	row("a component restart, until ready", secs(s.RestartMedian), pv(func(x WarmSummary) string { return secs(x.RestartMedian) }))
	row("CPU time the machine was busy, both cores", cpuSecs(s.BusyCPU), pv(func(x WarmSummary) string { return cpuSecs(x.BusyCPU) }))
	row("peak memory of the run's processes", mib(s.PeakRSS), pv(func(x WarmSummary) string { return mib(x.PeakRSS) }))
	warmRuns(b, w)
}

// warmRuns lists each run (where there are several: the medians are one
// run's figures), then where the median run's time went.
func warmRuns(b *strings.Builder, w Warm) {
	if len(w.Runs) > 1 {
		b.WriteString("\n### Each run\n\n| run | wall | first case | cases | cells at once | CPU busy | peak memory | golden |\n|---|---|---|---|---|---|---|---|\n")
		for i, r := range w.Runs {
			fmt.Fprintf(b, "| %d | %s | %s | %d | %d | %.0f%% | %s | %v |\n", i+1, secs(r.WallSeconds), secs(r.FirstCaseSeconds), r.Cases, r.Parallel, 100*r.MeanBusy, mib(r.PeakRSS), r.Golden)
		}
	}
	m := MedianRun(w.Runs)
	b.WriteString("\n### Where the median run's time went\n\nCluster start per cell (control plane, then the kubelet node where the cell's cases need one, then the capability probe):\n\n| cell | start | of which the node |\n|---|---|---|\n")
	var unstarted []string
	for _, c := range m.CellStart {
		if c.Seconds < noStart {
			unstarted = append(unstarted, c.Cell)
			continue
		}
		node := "-"
		if c.NodeSeconds >= noStart {
			node = secs(c.NodeSeconds)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", c.Cell, secs(c.Seconds), node)
	}
	if len(unstarted) > 0 {
		fmt.Fprintf(b, "\n%d cells started no cluster (the provider cannot run them): %s.\n", len(unstarted), strings.Join(unstarted, ", "))
	}
	b.WriteString("\nComponent restarts (each from the stop to the restarted component's readiness; an API server restart counts until it serves again):\n\n| component | restarts | median | slowest |\n|---|---|---|---|\n")
	by := restartsBy(m.Restarts)
	for _, comp := range sortedKeys(by) {
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", comp, len(by[comp]), secs(Median(by[comp])), secs(slices.Max(by[comp])))
	}
	if len(m.RestartCases) > 0 {
		fmt.Fprintf(b, "\nThe %d cases that restart a component took %s in all (median %s, slowest %s).\n\n", len(m.RestartCases), secs(sum(m.RestartCases)), secs(Median(m.RestartCases)), secs(slices.Max(m.RestartCases)))
	}
	programs(b, m)
}

// noStart is how long a start can take that started nothing: no control
// plane or node is up in under a millisecond, so a cell or node below it
// was not started (the provider cannot run the cell, or it needs no node).
const noStart = 0.001

// shownPrograms is how many programs the CPU table names; the rest share
// a row.
const shownPrograms = 10

// programs renders where a run's CPU time went, by program.
func programs(b *strings.Builder, r Run) {
	if len(r.Programs) == 0 {
		return
	}
	b.WriteString("CPU time by program: user and system time of every process started during the run, sampled each second (a process that lived less than a second is missed; names as the kernel keeps them, 15 bytes):\n\n| program | processes | CPU | share of the machine's busy time |\n|---|---|---|---|\n")
	share := func(f float64) string {
		if r.BusyCPUSeconds <= 0 {
			return ""
		}
		return fmt.Sprintf("%.0f%%", 100*f/r.BusyCPUSeconds)
	}
	var all, rest float64
	var restProcs, restCount int
	for i, p := range r.Programs {
		all += p.Seconds
		if i < shownPrograms {
			fmt.Fprintf(b, "| %s | %d | %s | %s |\n", p.Program, p.Processes, cpuSecs(p.Seconds), share(p.Seconds))
			continue
		}
		rest += p.Seconds
		restProcs += p.Processes
		restCount++
	}
	if restCount > 0 {
		fmt.Fprintf(b, "| %d other programs | %d | %s | %s |\n", restCount, restProcs, cpuSecs(rest), share(rest))
	}
	fmt.Fprintf(b, "| all of them | | %s | %s |\n", cpuSecs(all), share(all))
	if r.BusyCPUSeconds > 0 {
		fmt.Fprintf(b, "| the machine busy, both cores | | %s | 100%% |\n", cpuSecs(r.BusyCPUSeconds))
	}
	b.WriteString("\n")
}

// cpuSecs is CPU time; "-" for figures a run did not measure.
func cpuSecs(s float64) string {
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f CPU-s", s)
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

func cold(b *strings.Builder, c Cold, prev *Cold) {
	fmt.Fprintf(b, "## A newcomer's first result (`make bench-cold`)\n\n%s, commit %s: `%s` in a clean clone with empty Go module, Go build and binary caches.\n\n", c.Date, c.Commit, c.Command)
	fmt.Fprintf(b, "**First result in %s** (golden outcomes matched: %v); peak memory %s.", mmss(c.Seconds), c.Golden, mib(c.PeakRSS))
	if prev != nil {
		fmt.Fprintf(b, " Before: %s (%s, commit %s).", mmss(prev.Seconds), prev.Date, prev.Commit)
	}
	perStep := slices.ContainsFunc(c.Milestones, func(m Milestone) bool { return m.CPUSeconds > 0 })
	if perStep {
		b.WriteString("\n\n| when | what | CPU since the step before, both cores |\n|---|---|---|\n")
	} else {
		b.WriteString("\n\n| when | what |\n|---|---|\n")
	}
	for _, m := range c.Milestones {
		if perStep {
			fmt.Fprintf(b, "| %s | %s | %s |\n", mmss(m.Seconds), m.What, cpuSecs(m.CPUSeconds))
			continue
		}
		fmt.Fprintf(b, "| %s | %s |\n", mmss(m.Seconds), m.What)
	}
	var busy float64
	for _, f := range c.CPU {
		busy += f
	}
	if len(c.CPU) > 0 {
		busy /= float64(len(c.CPU))
	}
	// At most chartRows rows: neighbouring samples are averaged; the
	// milestones are the table's above, and bench.json keeps every sample.
	per := max((len(c.CPU)+chartRows-1)/chartRows, 1)
	step := c.CPUStep * float64(per)
	fmt.Fprintf(b, "\nCPU use over time, both cores together (mean %.0f%%; one row per %.0f s):\n\n```\n", 100*busy, step)
	for i := 0; i < len(c.CPU); i += per {
		row := c.CPU[i:min(i+per, len(c.CPU))]
		f := sum(row) / float64(len(row))
		fmt.Fprintf(b, "%5s %3.0f%% %s\n", mmss(float64(i)*c.CPUStep), 100*f, bar(f, 40))
	}
	b.WriteString("```\n")
}

// chartRows is how many rows the cold run's CPU chart has at most.
const chartRows = 12

func mmss(s float64) string {
	return fmt.Sprintf("%d:%02d", int(s)/60, int(s)%60)
}
