package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// Run is the figures of one measured `draconform run` of the matrix.
type Run struct {
	// WallSeconds is from starting the command to its exit.
	WallSeconds float64 `json:"wallSeconds"`
	// FirstCaseSeconds is from starting the command to its first case.
	FirstCaseSeconds float64 `json:"firstCaseSeconds"`
	// Golden says the run's outcomes matched the golden table.
	Golden   bool `json:"golden"`
	Parallel int  `json:"parallel"`
	Cases    int  `json:"cases"`
	// CellStart is each cell's cluster start (control plane, node, probe).
	CellStart []CellStart `json:"cellStart"`
	// CaseMedian and CaseP90 are the wall times of the cases that restart
	// nothing.
	CaseMedian float64 `json:"caseMedianSeconds"`
	CaseP90    float64 `json:"caseP90Seconds"`
	// SchedulerPerPod is the scheduler's own mean time from queueing a pod
	// to binding it, over every cell (its SLI metric).
	SchedulerPerPod float64 `json:"schedulerSecondsPerPod"`
	SchedulerPods   int     `json:"schedulerPods"`
	// Restarts are the component restarts, each until the component was
	// ready again; RestartCases the wall times of the cases that make them.
	Restarts     []Restart `json:"restarts"`
	RestartCases []float64 `json:"restartCaseSeconds"`
	PeakRSS      int64     `json:"peakRSSBytes"`
	MeanBusy     float64   `json:"meanBusy"`
	// BusyCPUSeconds is the CPU time the whole machine was busy during
	// the run, all cores together.
	BusyCPUSeconds float64 `json:"busyCPUSeconds,omitempty"`
	// Programs is where the run's own CPU time went (Sampler.Programs).
	Programs []ProgramCPU `json:"cpuByProgram,omitempty"`
	// PodCases are the cases that restart nothing and wrote pods, with
	// their time by part (runner.CasePhases), for the case ratio.
	PodCases PodCases `json:"podCases,omitzero"`
}

// CellStart is one cell's start.
type CellStart struct {
	Cell        string  `json:"cell"`
	Seconds     float64 `json:"seconds"`
	NodeSeconds float64 `json:"nodeSeconds,omitempty"`
}

// Restart is one component restart a case measured.
type Restart struct {
	Component string  `json:"component"`
	Seconds   float64 `json:"seconds"`
}

var restartLine = regexp.MustCompile(`^restart: (\S+) .* ready in ([0-9.]+)s$`)

// ReadRun reads the figures of a run from its output folder, began being
// when its command started and wall how long it ran.
func ReadRun(dir string, began time.Time, wall time.Duration, samples []Sample) (Run, error) {
	r := Run{WallSeconds: wall.Seconds()}
	var tm runner.RunTimings
	if err := readJSON(filepath.Join(dir, runner.TimingsFile), &tm); err != nil {
		return r, err
	}
	r.addTimings(tm, began)
	var reports []types.Report
	if err := readJSON(filepath.Join(dir, report.JSONFile), &reports); err != nil {
		return r, err
	}
	r.addCases(reports)
	var busy float64
	for _, s := range samples {
		r.PeakRSS = max(r.PeakRSS, s.RSS)
		busy += s.Busy
		r.BusyCPUSeconds += s.CPUSeconds
	}
	if len(samples) > 0 {
		r.MeanBusy = busy / float64(len(samples))
	}
	return r, nil
}

// addTimings reads the cells' start and the scheduler's time per pod from
// the run's timings; began is when the run's command started.
func (r *Run) addTimings(tm runner.RunTimings, began time.Time) {
	r.Parallel = tm.Parallel
	var first time.Time
	var schedSeconds float64
	for _, c := range tm.Cells {
		r.CellStart = append(r.CellStart, CellStart{Cell: c.Name(), Seconds: c.StartSeconds, NodeSeconds: c.NodeSeconds})
		if !c.FirstCase.IsZero() && (first.IsZero() || c.FirstCase.Before(first)) {
			first = c.FirstCase
		}
		if c.Scheduler != nil {
			r.SchedulerPods += c.Scheduler.Pods
			schedSeconds += c.Scheduler.Seconds
		}
	}
	if !first.IsZero() {
		r.FirstCaseSeconds = first.Sub(began).Seconds()
	}
	if r.SchedulerPods > 0 {
		r.SchedulerPerPod = schedSeconds / float64(r.SchedulerPods)
	}
}

// addCases counts the cases that ran, splitting those that restart a
// component from the others, whose times give the median and p90.
func (r *Run) addCases(reports []types.Report) {
	var plain []float64
	for _, rep := range reports {
		for _, sp := range rep.SpecReports {
			if sp.LeafNodeType != types.NodeTypeIt || !sp.State.Is(types.SpecStatePassed|types.SpecStateFailureStates) {
				continue
			}
			r.Cases++
			restarted := false
			for _, e := range sp.ReportEntries {
				if e.Name != report.EntryMeasurement {
					continue
				}
				if m := restartLine.FindStringSubmatch(e.StringRepresentation()); m != nil {
					s, _ := strconv.ParseFloat(m[2], 64)
					r.Restarts = append(r.Restarts, Restart{Component: m[1], Seconds: s})
					restarted = true
				}
			}
			if restarted || sp.IsSerial {
				r.RestartCases = append(r.RestartCases, report.CaseSeconds(sp))
			} else {
				plain = append(plain, report.CaseSeconds(sp))
				r.PodCases.add(sp)
			}
		}
	}
	r.CaseMedian, r.CaseP90 = Quantile(plain, 0.5), Quantile(plain, 0.9)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Quantile is the q-quantile of xs (nearest rank), 0 for none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(q*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

// Median is the median of xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MedianRun is the run of median wall time, whose breakdown the report shows.
func MedianRun(runs []Run) Run {
	s := append([]Run(nil), runs...)
	sort.Slice(s, func(i, j int) bool { return s[i].WallSeconds < s[j].WallSeconds })
	return s[(len(s)-1)/2]
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// restartsBy groups restart times by component.
func restartsBy(rs []Restart) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range rs {
		out[r.Component] = append(out[r.Component], r.Seconds)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func secs(f float64) string {
	switch {
	case f == 0:
		return "-"
	case f < 1:
		return fmt.Sprintf("%.0f ms", f*1000)
	default:
		return fmt.Sprintf("%.1f s", f)
	}
}
