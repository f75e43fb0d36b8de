package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// Results are what docs/bench.json keeps: the last warm and cold figures,
// and the ones they replaced, for the comparison.
type Results struct {
	Machine string `json:"machine"`
	Warm    *Warm  `json:"warm,omitempty"`
	Cold    *Cold  `json:"cold,omitempty"`
	// SchedCost is the last --scheduler-cost measurement; it compares
	// within itself, so no previous one is kept.
	SchedCost *SchedCost `json:"schedulerCost,omitempty"`
	// Ratios are the last `make bench`'s ratios, flagged against the
	// ones before (kept in Previous).
	Ratios *Ratios `json:"ratios,omitempty"`
	// Previous are the figures these replaced (their own Previous dropped).
	Previous *Results `json:"previous,omitempty"`
}

// Warm is N runs of the matrix with the binaries built.
type Warm struct {
	Date   string   `json:"date"`
	Commit string   `json:"commit"`
	Args   []string `json:"args"`
	Runs   []Run    `json:"runs"`
}

// Cold is one `make conformance` from a clean clone with empty caches.
type Cold struct {
	Date       string      `json:"date"`
	Commit     string      `json:"commit"`
	Command    string      `json:"command"`
	Seconds    float64     `json:"seconds"`
	Golden     bool        `json:"golden"`
	Milestones []Milestone `json:"milestones"`
	// CPU is the machine's busy fraction, one sample per CPUStep.
	CPU     []float64 `json:"cpu"`
	CPUStep float64   `json:"cpuStepSeconds"`
	PeakRSS int64     `json:"peakRSSBytes"`
}

// Milestone is when a cold run reached a step, by its output.
type Milestone struct {
	What    string  `json:"what"`
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the CPU time the machine was busy, all cores, since
	// the milestone before it in time (since the start for the first).
	CPUSeconds float64 `json:"cpuSeconds,omitempty"`
}

// WithCPU returns milestones in the order they were reached, each with the
// CPU time the samples show since the one before.
func WithCPU(ms []Milestone, samples []Sample) []Milestone {
	out := slices.Clone(ms)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seconds < out[j].Seconds })
	i := 0
	for k := range out {
		until := time.Duration(out[k].Seconds * float64(time.Second))
		for ; i < len(samples) && samples[i].At <= until; i++ {
			out[k].CPUSeconds += samples[i].CPUSeconds
		}
	}
	return out
}

// Load reads results, empty when the file does not exist.
func Load(path string) (Results, error) {
	var r Results
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Save writes results.
func (r Results) Save(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// With returns r with new warm or cold figures, keeping what they replace
// as Previous. A kind not measured now keeps its own previous figures: a
// cold run must not make the warm figures lose what they compare with.
func (r Results) With(machine string, w *Warm, c *Cold) Results {
	var prev Results
	if r.Previous != nil {
		prev = *r.Previous
		prev.Previous = nil
	}
	out := r
	out.Machine = machine
	if w != nil {
		prev.Machine, prev.Warm = r.Machine, r.Warm
		out.Warm = w
	}
	if c != nil {
		prev.Machine, prev.Cold = r.Machine, r.Cold
		out.Cold = c
	}
	out.Previous = &prev
	return out
}

// WithSchedCost returns r with new scheduler-cost figures, the warm and
// cold figures and their previous ones as they were.
func (r Results) WithSchedCost(machine string, s *SchedCost) Results {
	out := r
	out.Machine = machine
	out.SchedCost = s
	return out
}

// Downsample averages samples into buckets of step.
func Downsample(samples []Sample, step time.Duration) []float64 {
	var out []float64
	var sum float64
	var n int
	next := step
	for _, s := range samples {
		for s.At > next {
			if n > 0 {
				out = append(out, sum/float64(n))
			} else if len(out) > 0 {
				out = append(out, out[len(out)-1])
			}
			sum, n = 0, 0
			next += step
		}
		sum += s.Busy
		n++
	}
	if n > 0 {
		out = append(out, sum/float64(n))
	}
	return out
}

// bar draws a fraction as a bar of width cells.
func bar(f float64, width int) string {
	n := int(f*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return strings.Repeat("█", n) + strings.Repeat("·", width-n)
}
