package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/internal/textline"
)

// The timeline of report.html: one lane per cell, its cluster's start
// (the kubelet node's part darker), its cases as they ran (beside each
// other in rows of their own), a mark on each case that restarted a
// component, and the cluster's stop. Plain SVG: no script, no network.

// runTimings is what TimingsFile holds (the runner writes it).
type runTimings struct {
	Began   time.Time    `json:"began"`
	Seconds float64      `json:"seconds"`
	Cells   []cellTiming `json:"cells"`
}

type cellTiming struct {
	Target       string    `json:"target"`
	Cell         string    `json:"cell"`
	Part         int       `json:"part"`
	Began        time.Time `json:"began"`
	StartSeconds float64   `json:"startSeconds"`
	NodeSeconds  float64   `json:"nodeSeconds"`
	StopSeconds  float64   `json:"stopSeconds"`
}

// readTimings reads a run's TimingsFile; nil where the run wrote none (a
// run in one process) or it does not parse.
func readTimings(path string) *runTimings {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var t runTimings
	if json.Unmarshal(data, &t) != nil {
		return nil
	}
	return &t
}

type htmlTimeline struct {
	Width, Height int
	Ticks         []svgTick
	Lanes         []svgLane
	Rects         []svgRect
	// FromOutcomes says the run wrote no timings: cases only, no clusters.
	FromOutcomes bool
}

type svgTick struct {
	X     float64
	Label string
}

type svgLane struct {
	Y     int
	Label string
}

type svgRect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

const (
	laneLabel  = 250 // px for the cell's name
	laneWidth  = 700 // px for the time axis
	rowHeight  = 9   // px for one row of cases
	laneGap    = 8
	startRow   = 7 // px for the cluster's start and stop
	axisHeight = 18
)

// span is a lane's extent in time, the timeline's scale.
type span struct{ t0, t1 time.Time }

func (s span) x(t time.Time) float64 {
	total := s.t1.Sub(s.t0).Seconds()
	if total <= 0 {
		return laneLabel
	}
	return laneLabel + laneWidth*t.Sub(s.t0).Seconds()/total
}

func (s span) w(seconds float64) float64 {
	total := s.t1.Sub(s.t0).Seconds()
	if total <= 0 {
		return 0
	}
	return math.Max(1, laneWidth*seconds/total)
}

func end(t time.Time, seconds float64) time.Time {
	return t.Add(time.Duration(seconds * float64(time.Second)))
}

// timelineOf draws the run's timings and its cases; nil where neither
// says when anything ran.
func timelineOf(tm *runTimings, outcomes []Outcome) *htmlTimeline {
	lanes, order := laneCases(tm, outcomes)
	if len(order) == 0 {
		return nil
	}
	sp := timelineSpan(tm, outcomes)
	tl := &htmlTimeline{Width: laneLabel + laneWidth + 10, FromOutcomes: tm == nil}
	y := axisHeight
	for _, key := range order {
		y = tl.drawLane(sp, key, lanes[key], y)
	}
	tl.Height = y
	tl.Ticks = ticks(sp)
	return tl
}

// lane is one cell's clusters (one per part) and cases.
type lane struct {
	cells []cellTiming
	cases []Outcome
}

func laneCases(tm *runTimings, outcomes []Outcome) (map[string]*lane, []string) {
	lanes := map[string]*lane{}
	var order []string
	get := func(key string) *lane {
		if lanes[key] == nil {
			lanes[key] = &lane{}
			order = append(order, key)
		}
		return lanes[key]
	}
	if tm != nil {
		for _, c := range tm.Cells {
			l := get(c.Target + "/" + c.Cell)
			l.cells = append(l.cells, c)
		}
	}
	for _, o := range outcomes {
		if !o.Began.IsZero() {
			l := get(o.Target + "/" + o.Cell)
			l.cases = append(l.cases, o)
		}
	}
	return lanes, order
}

func timelineSpan(tm *runTimings, outcomes []Outcome) span {
	var sp span
	widen := func(a, b time.Time) {
		if a.IsZero() {
			return
		}
		if sp.t0.IsZero() || a.Before(sp.t0) {
			sp.t0 = a
		}
		if b.After(sp.t1) {
			sp.t1 = b
		}
	}
	if tm != nil {
		widen(tm.Began, end(tm.Began, tm.Seconds))
		for _, c := range tm.Cells {
			widen(c.Began, end(c.Began, c.StartSeconds))
		}
	}
	for _, o := range outcomes {
		widen(o.Began, end(o.Began, o.Seconds))
	}
	return sp
}

// drawLane draws one cell from y down and returns where the next begins.
func (tl *htmlTimeline) drawLane(sp span, key string, l *lane, y int) int {
	restarts := 0
	var last time.Time
	rows := caseRows(l.cases)
	casesY := float64(y + startRow + 2)
	for i, o := range l.cases {
		n := restartsOf(o)
		restarts += n
		e := end(o.Began, o.Seconds)
		if e.After(last) {
			last = e
		}
		title := fmt.Sprintf("%s: %s in %.1fs, began %s", o.Name(), stateWord(o), o.Seconds, o.Began.Format("15:04:05"))
		r := svgRect{X: sp.x(o.Began), Y: casesY + float64(rows[i]*rowHeight), W: sp.w(o.Seconds), H: rowHeight - 1, Class: "case " + caseClass(o), Title: title}
		tl.Rects = append(tl.Rects, r)
		if n > 0 {
			tl.Rects = append(tl.Rects, svgRect{X: r.X, Y: r.Y - 2, W: 3, H: rowHeight + 3, Class: "restart",
				Title: fmt.Sprintf("%s: %s", o.Name(), textline.Count(n, "component restart"))})
		}
	}
	for _, c := range l.cells {
		tl.drawCluster(sp, c, last, float64(y))
	}
	label := key
	if len(l.cells) > 1 {
		label += fmt.Sprintf(" (%d parts)", len(l.cells))
	}
	if restarts > 0 {
		label += ", " + textline.Count(restarts, "restart")
	}
	tl.Lanes = append(tl.Lanes, svgLane{Y: y + startRow + 4, Label: label})
	height := startRow + 2 + rowHeight*(maxRow(rows)+1) + laneGap
	return y + height
}

// drawCluster draws a cluster's start (its node's part apart) and its
// stop, after the lane's last case.
func (tl *htmlTimeline) drawCluster(sp span, c cellTiming, last time.Time, y float64) {
	name := c.Target + "/" + c.Cell
	if c.Part > 0 {
		name += fmt.Sprintf(" part %d", c.Part)
	}
	tl.Rects = append(tl.Rects, svgRect{X: sp.x(c.Began), Y: y, W: sp.w(c.StartSeconds), H: startRow, Class: "start",
		Title: fmt.Sprintf("%s: cluster started in %.1fs at %s", name, c.StartSeconds, c.Began.Format("15:04:05"))})
	if c.NodeSeconds > 0 {
		at := end(c.Began, c.StartSeconds-c.NodeSeconds)
		tl.Rects = append(tl.Rects, svgRect{X: sp.x(at), Y: y, W: sp.w(c.NodeSeconds), H: startRow, Class: "node",
			Title: fmt.Sprintf("%s: kubelet node added in %.1fs", name, c.NodeSeconds)})
	}
	if c.StopSeconds > 0 {
		from := end(c.Began, c.StartSeconds)
		if last.After(from) {
			from = last
		}
		tl.Rects = append(tl.Rects, svgRect{X: sp.x(from), Y: y, W: sp.w(c.StopSeconds), H: startRow, Class: "stop",
			Title: fmt.Sprintf("%s: cluster stopped in %.1fs", name, c.StopSeconds)})
	}
}

// caseRows puts each case in the first row where it overlaps none, so
// that cases run beside each other are drawn apart.
func caseRows(cases []Outcome) []int {
	var ends []time.Time // per row, when its last case ended
	rows := make([]int, len(cases))
	for i, o := range cases {
		r := 0
		for r < len(ends) && o.Began.Before(ends[r]) {
			r++
		}
		if r == len(ends) {
			ends = append(ends, time.Time{})
		}
		ends[r] = end(o.Began, o.Seconds)
		rows[i] = r
	}
	return rows
}

func maxRow(rows []int) int {
	m := 0
	for _, r := range rows {
		m = max(m, r)
	}
	return m
}

// restartsOf counts the component restarts a case measured.
func restartsOf(o Outcome) int {
	n := 0
	for _, m := range o.Measurements {
		if strings.HasPrefix(m, "restart") {
			n++
		}
	}
	return n
}

// ticks marks the time axis every round number of seconds, about eight
// times.
func ticks(sp span) []svgTick {
	total := sp.t1.Sub(sp.t0).Seconds()
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600} {
		step = s
		if total/s <= 8 {
			break
		}
	}
	var out []svgTick
	for t := 0.0; t <= total+0.001; t += step {
		label := fmt.Sprintf("%gs", t)
		if step >= 60 {
			label = fmt.Sprintf("%gm", t/60)
		}
		out = append(out, svgTick{X: sp.x(end(sp.t0, t)), Label: label})
	}
	return out
}
