package bench

import (
	"fmt"
	"sort"
)

// Ratios are draconform's speed as ratios, each of two things measured side
// by side in one run on the same machine, so that a slow or busy machine
// slows both: a case against the scheduler's own time for its pods, a
// cell's cluster start against a bare API server's, and a verdict on an
// existing cluster against the e2e framework's per-test overhead.
type Ratios struct {
	Date   string `json:"date"`
	Commit string `json:"commit"`
	// Load is the machine's load average when the measurement began, and
	// Cores its cores: a load near or above the cores means it was
	// measured beside other work.
	Load  float64 `json:"loadAverage"`
	Cores int     `json:"cores"`
	// Ran says what was measured: the matrix's arguments, the vendor
	// path's provider, cell and claim.
	Ran string `json:"ran,omitempty"`
	// Matrix and VendorPath name the work behind the case ratio (the
	// matrix's arguments) and the vendor ratios (provider/cell, claim):
	// a record of other work is not compared with.
	Matrix     string `json:"matrix,omitempty"`
	VendorPath string `json:"vendorPath,omitempty"`
	// Case, Start and Vendor are nil where the run did not measure them.
	Case   *SpeedRatio `json:"case,omitempty"`
	Start  *SpeedRatio `json:"start,omitempty"`
	Vendor *SpeedRatio `json:"vendor,omitempty"`
	// Overhead is the vendor path's own per-case overhead (namespace and
	// clean-up) against the e2e framework's per-test one, like for like.
	Overhead *SpeedRatio `json:"overhead,omitempty"`
	// Worse lists the ratios that worsened by more than their noise
	// since the previous record; Uncompared those the previous record
	// measured on other work, with what it was.
	Worse      []string `json:"worsened,omitempty"`
	Uncompared []string `json:"uncompared,omitempty"`
}

// SpeedRatio is one ratio: the median of its samples, each a numerator and
// denominator measured side by side, and the numerator's parts.
type SpeedRatio struct {
	Samples []Pair `json:"samples"`
	// Goal is the ratio aimed for; 0 for none.
	Goal float64 `json:"goal,omitempty"`
	// Parts split the numerator's median, in seconds; Floor the same for
	// the denominator.
	Parts []Part `json:"parts,omitempty"`
	Floor []Part `json:"floorParts,omitempty"`
	// Note says what the sides are, for the record.
	Note string `json:"note,omitempty"`
}

// Pair is one side-by-side measurement, in seconds.
type Pair struct {
	Num float64 `json:"num"`
	Den float64 `json:"den"`
}

// Part is a named share of a time.
type Part struct {
	What    string  `json:"what"`
	Seconds float64 `json:"seconds"`
}

// Of is p's ratio; 0 where its denominator is not positive.
func (p Pair) Of() float64 {
	if p.Den <= 0 {
		return 0
	}
	return p.Num / p.Den
}

// Value is the median of the samples' ratios.
func (r SpeedRatio) Value() float64 {
	var xs []float64
	for _, p := range r.Samples {
		if v := p.Of(); v > 0 {
			xs = append(xs, v)
		}
	}
	return Median(xs)
}

// Noise is half the spread of the samples' ratios: how far one
// measurement of it strays from another here. 0 with one sample.
func (r SpeedRatio) Noise() float64 {
	var xs []float64
	for _, p := range r.Samples {
		if v := p.Of(); v > 0 {
			xs = append(xs, v)
		}
	}
	if len(xs) < 2 {
		return 0
	}
	sort.Float64s(xs)
	return (xs[len(xs)-1] - xs[0]) / 2
}

// Median of the numerators and of the denominators.
func (r SpeedRatio) Medians() (num, den float64) {
	var ns, ds []float64
	for _, p := range r.Samples {
		ns = append(ns, p.Num)
		ds = append(ds, p.Den)
	}
	return Median(ns), Median(ds)
}

// Worsened says whether now is worse than before by more than the noise
// of either (the larger): a ratio that grew within its noise is not.
func Worsened(now, before *SpeedRatio) bool {
	if now == nil || before == nil || now.Value() == 0 || before.Value() == 0 {
		return false
	}
	return now.Value()-before.Value() > max(now.Noise(), before.Noise())
}

// Flag fills now.Worse with the ratios that worsened since prev.
func (now *Ratios) Flag(prev *Ratios) {
	now.Worse, now.Uncompared = nil, nil
	if prev == nil {
		return
	}
	for _, c := range []struct {
		name        string
		now, then   *SpeedRatio
		work, prior string // what each measured; "" where it is always the same
	}{
		{"case", now.Case, prev.Case, now.Matrix, prev.Matrix},
		{"start", now.Start, prev.Start, "", ""},
		{"vendor", now.Vendor, prev.Vendor, now.VendorPath, prev.VendorPath},
		{"overhead", now.Overhead, prev.Overhead, now.VendorPath, prev.VendorPath},
	} {
		if c.now == nil || c.then == nil {
			continue
		}
		if c.work != c.prior {
			prior := c.prior
			if prior == "" {
				prior = "not recorded"
			}
			now.Uncompared = append(now.Uncompared, fmt.Sprintf("%s: the previous record measured other work (%s)", c.name, prior))
			continue
		}
		if Worsened(c.now, c.then) {
			now.Worse = append(now.Worse, fmt.Sprintf("%s: %.2f× now, %.2f× before (noise ±%.2f× / ±%.2f×)",
				c.name, c.now.Value(), c.then.Value(), c.now.Noise(), c.then.Noise()))
		}
	}
}

// WithRatios returns r with new ratios, the ones they replace kept as
// Previous and compared with.
func (r Results) WithRatios(machine string, now *Ratios) Results {
	out := r
	out.Machine = machine
	var prev Results
	if r.Previous != nil {
		prev = *r.Previous
		prev.Previous = nil
	}
	if r.Ratios != nil {
		prev.Ratios = r.Ratios
	}
	now.Flag(prev.Ratios)
	out.Ratios = now
	out.Previous = &prev
	return out
}

// medianParts is, for each part named in any of parts, the median of its
// seconds over the samples (0 where a sample lacks it), in the order given.
func medianParts(order []string, parts []map[string]float64) []Part {
	var out []Part
	for _, what := range order {
		var xs []float64
		for _, p := range parts {
			xs = append(xs, p[what])
		}
		out = append(out, Part{What: what, Seconds: Median(xs)})
	}
	return out
}
