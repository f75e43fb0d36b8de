package docs

import (
	"fmt"
	"strconv"

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

// warmMeasurements is one line: what a newcomer asks of a run (how long,
// how soon a first case, how much CPU and memory). The cell starts, case
// times and the scheduler's share are docs/bench.md's, which it links.
func warmMeasurements(w bench.Warm) []Measurement {
	s := bench.Summarize(w)
	golden := "outcomes equal to the golden table"
	if !s.AllGolden {
		golden = "some run's outcomes NOT equal to the golden table"
	}
	of := fmt.Sprintf("median of %d runs", s.Runs)
	if s.Runs == 1 {
		of = "one run"
	}
	text := fmt.Sprintf("%s; first case ended at %s s", of, tenthsText(s.FirstCase))
	if s.BusyCPU > 0 {
		text += ", " + tenthsText(s.BusyCPU) + " CPU-s (both cores)"
	}
	peak := fmt.Sprintf(", %.0f MiB peak", float64(s.PeakRSS)/(1<<20))
	if s.Runs > 1 {
		peak += " in the highest run"
	}
	text += peak + "; " + golden
	return []Measurement{{Topic: topicRun, What: fmt.Sprintf("[the whole matrix, both implementations, binaries built](%s): wall time", benchWarmLink),
		Value: tenths(s.Wall), Unit: "s", Text: text, Date: w.Date, Commit: w.Commit, Command: "make bench"}}
}

func coldMeasurements(c bench.Cold) []Measurement {
	golden := "golden outcomes matched"
	if !c.Golden {
		golden = "golden outcomes NOT matched"
	}
	text := fmt.Sprintf("%d:%02d", int(c.Seconds)/60, int(c.Seconds)%60)
	cpu := 0.0
	for _, m := range c.Milestones {
		cpu += m.CPUSeconds
	}
	if cpu > 0 {
		text += ", " + tenthsText(cpu) + " CPU-s (both cores)"
	}
	return []Measurement{{Topic: topicCold, What: fmt.Sprintf("[a newcomer's first `%s`](%s): clean clone, empty Go and binary caches, to the first result", c.Command, benchColdLink),
		Value: tenths(c.Seconds / 60), Unit: "min", Text: text + "; " + golden, Date: c.Date, Commit: c.Commit, Command: "make bench-cold"}}
}

// schedMeasurements is one line: the side with the field, and the side
// without it as the figure it is compared with.
func schedMeasurements(s bench.SchedCost) []Measurement {
	mean := func(sd bench.Side) float64 { return sd.Delta.Scheduled.Mean() * 1000 }
	return []Measurement{{Topic: topicScheduler,
		What:  fmt.Sprintf("[a scheduling attempt that binds a pod](%s), its class with `extendedResourceCapacityRequests`", benchSchedLink),
		Value: tenths(mean(s.With)), Unit: "ms",
		Text: fmt.Sprintf("mean of %d pods; %s ms without the field (%d pods); cell %s, %d shareable devices, batches of %d, the sides alternating",
			s.With.Pods, tenthsText(mean(s.Without)), s.Without.Pods, s.Cell, s.Devices, s.Batch),
		Date: s.Date, Commit: s.Commit, Command: "make bench-scheduler-cost"}}
}

// tenthsText is f as a figure's value is shown: to a tenth, without a
// trailing zero.
func tenthsText(f float64) string { return strconv.FormatFloat(*tenths(f), 'f', -1, 64) }
