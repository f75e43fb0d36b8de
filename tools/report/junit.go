package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/internal/textline"
)

// The JUnit file is written from the outcomes, not from ginkgo's report:
// CI reporters (Jenkins, GitHub's test reporters, Sonobuoy) group test
// cases by testsuite and classname and show their names in a list, so each
// implementation and suite is a testsuite of its own, a case is named
// case@cell, and ginkgo's set-up nodes, which are no cases, are left out.
// The attributes are those the JUnit schema Jenkins reads (junit-10.xsd)
// declares; <testsuites> has no skipped attribute there, so its skips are
// counted in tests and per testsuite only.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Status    string        `xml:"status,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped"`
	Error     *junitMessage `xml:"error"`
	Failure   *junitMessage `xml:"failure"`
	SystemOut *junitText    `xml:"system-out"`
}

// junitText is text a person reads in the file too: CDATA keeps its lines
// and quotes as they are, where escaping writes &#xA; for each newline.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// JUnitClass is the classname of an outcome's test case: its
// implementation and suite, as CI groups them.
func (o Outcome) JUnitClass() string {
	if o.Target == "" {
		return o.suite()
	}
	return o.Target + "." + o.suite()
}

// JUnitName is the name of an outcome's test case: case@cell.
func (o Outcome) JUnitName() string {
	return strings.TrimPrefix(o.ID, o.suite()+"/")
}

// suite is the outcome's suite, read from its id (suite/case@cell) where
// an outcome written by hand leaves it out.
func (o Outcome) suite() string {
	if o.Suite != "" {
		return o.Suite
	}
	s, _, _ := strings.Cut(o.ID, "/")
	return s
}

// setupSuite holds the set-up and tear-down nodes that failed: no case,
// but a run whose set-up failed must not look green in CI.
const setupSuite = "draconform.setup"

// JUnit renders outcomes as a JUnit report. Paths under dir (the run's
// output folder) are written relative to it; failed set-up nodes of r
// become errors of a testsuite of their own.
func JUnit(r types.Report, outcomes []Outcome, dir string) ([]byte, error) {
	bySuite := map[string]*junitSuite{}
	var names []string
	suite := func(name string) *junitSuite {
		s, ok := bySuite[name]
		if !ok {
			s = &junitSuite{Name: name}
			if !r.StartTime.IsZero() {
				s.Timestamp = r.StartTime.UTC().Format("2006-01-02T15:04:05")
			}
			bySuite[name] = s
			names = append(names, name)
		}
		return s
	}
	seconds := map[string]float64{}
	for _, o := range outcomes {
		s := suite(o.JUnitClass())
		c := junitCaseOf(o, dir)
		seconds[s.Name] += o.Seconds
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType == types.NodeTypeIt || !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		s := suite(setupSuite)
		s.Tests++
		s.Errors++
		seconds[s.Name] += sr.RunTime.Seconds()
		where := fmt.Sprintf("%s:%d", filepath.Base(sr.Failure.Location.FileName), sr.Failure.Location.LineNumber)
		s.Cases = append(s.Cases, junitCase{Name: sr.LeafNodeType.String(), Classname: setupSuite, Status: "error", Time: secs(sr.RunTime.Seconds()),
			Error: &junitMessage{Message: textline.Summary(sr.Failure.Message, " …"), Type: sr.State.String(), Text: where + ": " + sr.Failure.Message}})
	}
	sort.Strings(names)
	all := junitSuites{Name: "draconform"}
	var total float64
	for _, n := range names {
		s := bySuite[n]
		s.Time = secs(seconds[n])
		total += seconds[n]
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Suites = append(all.Suites, *s)
	}
	all.Time = secs(total)
	data, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(data, '\n')...), nil
}

// junitCaseOf is an outcome's test case: a failure or a skip says why, and
// what a reader of the outcome sees besides (its note, cause, diagnostics
// and measurements) is its system-out.
func junitCaseOf(o Outcome, dir string) junitCase {
	c := junitCase{Name: o.JUnitName(), Classname: o.JUnitClass(), Status: string(o.State), Time: secs(o.Seconds)}
	switch o.State {
	case Failed:
		c.Failure = &junitMessage{Message: FailureReason(o), Type: failureType(o), Text: FailureText(o)}
	case Skipped:
		c.Skipped = &junitMessage{Message: textline.Summary(o.Message, " …")}
	}
	var out []string
	if o.Note != "" {
		out = append(out, "outcome: "+o.Note)
	}
	if o.Cause != "" {
		out = append(out, "cause: "+o.Cause)
	}
	if o.Diagnostics != "" {
		out = append(out, "diagnostics: "+relative(dir, o.Diagnostics))
	}
	out = append(out, o.Measurements...)
	if len(out) > 0 {
		c.SystemOut = &junitText{strings.Join(out, "\n")}
	}
	return c
}

func writeJUnit(path string, r types.Report, outcomes []Outcome) error {
	data, err := JUnit(r, outcomes, filepath.Dir(path))
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }

// failureType says whether a failure blocks a claim: CI shows it beside
// the message.
func failureType(o Outcome) string {
	if o.Informing {
		return "informing"
	}
	return "failed"
}

// relative writes a path under dir relative to it, and any other path by
// its base name: a report names no folder of the machine it ran on.
func relative(dir, path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	if absDir, err := filepath.Abs(dir); err == nil {
		if rel, err := filepath.Rel(absDir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return filepath.Base(path)
}
