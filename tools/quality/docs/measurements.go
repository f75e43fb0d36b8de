package docs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Measurement is one figure of docs/measurements.json: what was measured,
// when, on which tree, by which command, and how busy the machine was when
// that matters. The record keeps the latest measurement of each thing (and
// both sides of a comparison); older ones live in git history.
type Measurement struct {
	// Topic groups the figures page's table (a run, a cold build, ...);
	// topics appear in the order of their first measurement.
	Topic string `json:"topic"`
	What  string `json:"what"`
	// Value and Unit are the figure; Text qualifies it (a range, a
	// breakdown) or, without a Value, is the figure.
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	Text  string   `json:"text,omitempty"`
	// Date is YYYY-MM-DD; Commit the tree measured (for figures older than
	// this record, the commit that first wrote them down).
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	Command string `json:"command"`
	Machine string `json:"machine,omitempty"`
	// Superseded says why a later measurement replaces this one (the
	// before side of a change, the same thing measured again): the record
	// keeps it, the page shows only what is current and counts the rest.
	Superseded string `json:"superseded,omitempty"`
}

// Measurements is docs/measurements.json.
type Measurements struct {
	// Topics are the page's headings in order; every measurement's topic
	// is one of them (bench.json's topics that are not come last).
	Topics       []string      `json:"topics"`
	Measurements []Measurement `json:"measurements"`
}

var commitRe = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// LoadMeasurements reads and checks the record; a record that does not
// exist gives nil, leaving its page alone.
func LoadMeasurements(path string) (*Measurements, error) {
	m, err := loadRecord[Measurements](path)
	if m == nil || err != nil {
		return nil, err
	}
	var problems []string
	for i, e := range m.Measurements {
		if !slices.Contains(m.Topics, e.Topic) {
			problems = append(problems, fmt.Sprintf("measurement %d (%q): topic %q is not one of topics", i+1, e.What, e.Topic))
		}
		for _, p := range e.problems() {
			problems = append(problems, fmt.Sprintf("measurement %d (%q): %s", i+1, e.What, p))
		}
		// A line that goes on from the one before ("… with 6 cells")
		// needs that line on the page.
		if strings.HasPrefix(e.What, "…") && e.Superseded == "" &&
			(i == 0 || m.Measurements[i-1].Topic != e.Topic || m.Measurements[i-1].Superseded != "") {
			problems = append(problems, fmt.Sprintf("measurement %d (%q): goes on from a line the page does not show (another topic's, or superseded): say what it measures whole", i+1, e.What))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %s", path, strings.Join(problems, "; "))
	}
	return m, nil
}

// problems are what keeps e from being a figure a reader can trust: every
// figure says what, when, on which tree and by which command.
func (e Measurement) problems() []string {
	var out []string
	if e.Topic == "" || e.What == "" || e.Command == "" {
		out = append(out, "topic, what and command are required")
	}
	if _, err := time.Parse(time.DateOnly, e.Date); err != nil {
		out = append(out, fmt.Sprintf("date %q is not YYYY-MM-DD", e.Date))
	}
	if !commitRe.MatchString(e.Commit) {
		out = append(out, fmt.Sprintf("commit %q is not a commit hash", e.Commit))
	}
	switch {
	case e.Value == nil && e.Text == "":
		out = append(out, "neither value nor text")
	case e.Value != nil && e.Unit == "":
		out = append(out, "a value without a unit")
	}
	return out
}

// Figure is how the table shows e's figure: the value in bold with its
// unit, then its text.
func (e Measurement) Figure() string {
	if e.Value == nil {
		return e.Text
	}
	f := "**" + strconv.FormatFloat(*e.Value, 'f', -1, 64) + " " + e.Unit + "**"
	if e.Text != "" {
		f += ", " + e.Text
	}
	return f
}
