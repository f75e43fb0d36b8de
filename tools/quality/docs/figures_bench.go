package docs

import (
	"fmt"

	"github.com/draconform/draconform/tools/quality/bench"
)

// The sections of docs/bench.md the figures page links to.
const (
	benchWarmLink  = "bench.md#the-matrix-binaries-built-make-bench"
	benchColdLink  = "bench.md#a-newcomers-first-result-make-bench-cold"
	benchSchedLink = "bench.md#what-the-field-costs-the-scheduler-make-bench-scheduler-cost"
)

// BenchMeasurements are the headline figures of bench.json's latest
// records, as the figures page lists them: bench.json is their record, so
// measurements.json does not repeat them.
func BenchMeasurements(b bench.Results) []Measurement {
	var out []Measurement
	if b.Warm != nil && len(b.Warm.Runs) > 0 {
		out = append(out, warmMeasurements(*b.Warm)...)
	}
	if b.Cold != nil {
		out = append(out, coldMeasurements(*b.Cold)...)
	}
	if b.SchedCost != nil {
		out = append(out, schedMeasurements(*b.SchedCost)...)
	}
	return out
}

func warmMeasurements(w bench.Warm) []Measurement {
	s := bench.Summarize(w)
	golden := "each run's outcomes equal to the golden table"
	if !s.AllGolden {
		golden = "some run's outcomes NOT equal to the golden table"
	}
	of := fmt.Sprintf("median of %d runs", s.Runs)
	if s.Runs == 1 {
		of = "one run"
	}
	at := func(what string, v float64, unit, text string) Measurement {
		return Measurement{Topic: topicRun, What: what, Value: tenths(v), Unit: unit, Text: text,
			Date: w.Date, Commit: w.Commit, Command: "make bench"}
	}
	out := []Measurement{
		at(fmt.Sprintf("[the whole matrix, both implementations, binaries built](%s): wall time", benchWarmLink), s.Wall, "s", of+"; "+golden),
		at("… until its first case ends", s.FirstCase, "s", of),
		at("… a cell's cluster start: control plane, then the node where its cases need one, then the probe", s.CellStartMedian, "s", fmt.Sprintf("median; the slowest %.1f s", s.CellMax)),
		at("… a case that restarts nothing", s.CaseMedian, "s", fmt.Sprintf("median; p90 %.1f s", s.CaseP90)),
	}
	if s.SchedulerPerPod > 0 {
		out = append(out, at("… the scheduler's own time per pod, queue to bound", s.SchedulerPerPod*1000, "ms", of))
	}
	if s.BusyCPU > 0 {
		out = append(out, at("… CPU the machine was busy, both cores", s.BusyCPU, "CPU-s", of))
	}
	peak := at("… peak memory of its processes", 0, "MiB", "the highest run")
	peak.Value = whole(float64(s.PeakRSS) / (1 << 20))
	return append(out, peak)
}

func coldMeasurements(c bench.Cold) []Measurement {
	at := func(what string, v float64, unit, text string) Measurement {
		return Measurement{Topic: topicCold, What: what, Value: tenths(v), Unit: unit, Text: text,
			Date: c.Date, Commit: c.Commit, Command: "make bench-cold"}
	}
	golden := "golden outcomes matched"
	if !c.Golden {
		golden = "golden outcomes NOT matched"
	}
	out := []Measurement{at(fmt.Sprintf("[a newcomer's first `%s`](%s): clean clone, empty Go and binary caches, to the first result", c.Command, benchColdLink),
		c.Seconds/60, "min", fmt.Sprintf("%d:%02d, %s", int(c.Seconds)/60, int(c.Seconds)%60, golden))}
	cpu := 0.0
	for _, m := range c.Milestones {
		cpu += m.CPUSeconds
	}
	if cpu > 0 {
		out = append(out, at("… CPU it took, both cores", cpu, "CPU-s", fmt.Sprintf("%.1f min on 2 cores never idle", cpu/120)))
	}
	return out
}

// schedMeasurements gives the side with the field whole and the side
// without it as a line going on from it, which says only what differs.
func schedMeasurements(s bench.SchedCost) []Measurement {
	side := func(what, text string, sd bench.Side) Measurement {
		return Measurement{Topic: topicScheduler, What: what,
			Value: tenths(sd.Delta.Scheduled.Mean() * 1000), Unit: "ms",
			Text: fmt.Sprintf("mean of %d pods%s", sd.Pods, text),
			Date: s.Date, Commit: s.Commit, Command: "make bench-scheduler-cost"}
	}
	return []Measurement{
		side(fmt.Sprintf("[a scheduling attempt that binds a pod](%s), its class with `extendedResourceCapacityRequests`", benchSchedLink),
			fmt.Sprintf("; cell %s, %d shareable devices, batches of %d alternating with the other side", s.Cell, s.Devices, s.Batch), s.With),
		side("… its class without the field", "", s.Without),
	}
}
