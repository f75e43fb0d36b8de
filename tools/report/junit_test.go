package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// junitSchema is what the JUnit schema Jenkins' reporters validate against
// (xunit-plugin's junit-10.xsd, which GitHub's JUnit actions also read)
// allows: for each element, its attributes, which of them are required, and
// its children in the order the schema's sequences give them.
var junitSchema = map[string]struct {
	attrs, required, children []string
}{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "disabled", "errors"}, children: []string{"testsuite"}},
	"testsuite": {attrs: []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url", "version", "disabled"},
		required: []string{"name", "tests"}, children: []string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
	"testcase": {attrs: []string{"name", "assertions", "time", "timestamp", "classname", "status", "class", "file", "line", "log", "group", "url"},
		required: []string{"name"}, children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"}},
	"skipped":    {attrs: []string{"message"}},
	"failure":    {attrs: []string{"message", "type"}},
	"error":      {attrs: []string{"message", "type"}},
	"system-out": {},
	"system-err": {},
}

// numeric are the attributes the schema's readers parse as numbers.
var numeric = map[string]bool{"tests": true, "failures": true, "errors": true, "skipped": true, "disabled": true, "time": true}

// validJUnit checks data against junitSchema and returns every problem.
func validJUnit(data []byte) []string {
	var probs []string
	d := xml.NewDecoder(strings.NewReader(string(data)))
	type open struct {
		name string
		last int // index in children of the last child seen
	}
	var stack []*open
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(probs, err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			el, known := junitSchema[name]
			if len(stack) == 0 && name != "testsuites" {
				probs = append(probs, "root element "+name+", want testsuites")
			}
			if !known {
				probs = append(probs, "unknown element "+name)
			}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				i := slices.Index(junitSchema[parent.name].children, name)
				switch {
				case i < 0:
					probs = append(probs, fmt.Sprintf("%s may not hold %s", parent.name, name))
				case i < parent.last:
					probs = append(probs, fmt.Sprintf("%s in %s after %s", name, parent.name, junitSchema[parent.name].children[parent.last]))
				default:
					parent.last = i
				}
			}
			have := map[string]bool{}
			for _, a := range t.Attr {
				have[a.Name.Local] = true
				if !slices.Contains(el.attrs, a.Name.Local) {
					probs = append(probs, fmt.Sprintf("%s has attribute %s, which the schema does not declare", name, a.Name.Local))
				}
				if numeric[a.Name.Local] {
					if _, err := strconv.ParseFloat(a.Value, 64); err != nil {
						probs = append(probs, fmt.Sprintf("%s %s=%q is no number", name, a.Name.Local, a.Value))
					}
				}
			}
			for _, r := range el.required {
				if !have[r] {
					probs = append(probs, fmt.Sprintf("%s lacks required attribute %s", name, r))
				}
			}
			stack = append(stack, &open{name: name})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return probs
}

func TestValidJUnitCatchesWhatTheSchemaForbids(t *testing.T) {
	for _, bad := range []string{
		`<testsuite name="x" tests="1"/>`,
		`<testsuites><testsuite tests="1"/></testsuites>`,
		`<testsuites><testsuite name="x" tests="1"><testcase name="a"><failure/><skipped/></testcase></testsuite></testsuites>`,
		`<testsuites skipped="1"><testsuite name="x" tests="1"/></testsuites>`,
		`<testsuites><testsuite name="x" tests="many"/></testsuites>`,
		`<testsuites><testsuite name="x" tests="1"><testcase name="a"><message/></testcase></testsuite></testsuites>`,
	} {
		if len(validJUnit([]byte(bad))) == 0 {
			t.Errorf("%s passes the schema check", bad)
		}
	}
}

// ginkgoRun is a run's report as ginkgo hands it over: cases of two
// implementations and suites, in every state, among the set-up nodes of a
// parallel run.
func ginkgoRun(dir string) types.Report {
	spec := func(k Key, st types.SpecState, msg string, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: k.Title() + " [suite:" + k.Suite + "]", State: st, RunTime: 2 * time.Second,
			Failure:       types.Failure{Message: msg},
			ReportEntries: append(types.ReportEntries{{Name: EntryKey, Value: types.WrapEntryValue(k)}}, entries...)}
	}
	setup := func(nt types.NodeType) types.SpecReport {
		return types.SpecReport{LeafNodeType: nt, State: types.SpecStatePassed, LeafNodeLocation: types.CodeLocation{FileName: "/home/someone/draconform/tools/runner/runner.go", LineNumber: 9}}
	}
	diag := types.ReportEntry{Name: EntryDiagnostics, Value: types.WrapEntryValue(filepath.Join(dir, "diagnostics", "case.txt"))}
	return types.Report{SuitePath: "/home/someone/draconform/tools/runner", SuiteDescription: "draconform", StartTime: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC),
		SpecReports: types.SpecReports{
			setup(types.NodeTypeSynchronizedBeforeSuite),
			spec(Key{Target: "prototype", Suite: "kep6406-api", Case: "field-stored", Cell: "capacity-on"}, types.SpecStatePassed, ""),
			spec(Key{Target: "prototype", Suite: "kep6406-api", Case: "field-dropped", Cell: "capacity-off"}, types.SpecStateFailed, "step 2 at suites/x.yaml:9, pod p1 is scheduled:\nwant node n1\ngot none", diag),
			spec(Key{Target: "prototype", Suite: "kep6406-skew", Case: "old-scheduler", Cell: "defaults"}, types.SpecStateSkipped, "the provider cannot run this cell"),
			spec(Key{Target: "local", Suite: "kep6406-api", Case: "field-stored", Cell: "capacity-on"}, types.SpecStatePassed, ""),
			spec(Key{Target: "local", Suite: "kep6406-api", Case: "reading", Cell: "capacity-on", Contested: true, Informing: true}, types.SpecStateFailed, "reading 3"),
			// Not selected: no case of this run.
			spec(Key{Target: "local", Suite: "kep6406-api", Case: "other", Cell: "capacity-on"}, types.SpecStateSkipped, ""),
			setup(types.NodeTypeSynchronizedAfterSuite),
			setup(types.NodeTypeReportAfterSuite),
		}}
}

type parsedSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Disabled int `xml:"disabled,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Package  string `xml:"package,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Disabled int    `xml:"disabled,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Skipped   *struct{}
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// The JUnit file of a run: valid by the schema, one testsuite per
// implementation and suite, cases named case@cell in classes
// implementation.suite, no set-up nodes, counts that equal the outcomes,
// and no path of the machine it ran on.
func TestJUnitIsOneTestsuitePerImplementationAndSuite(t *testing.T) {
	dir := t.TempDir()
	r := ginkgoRun(dir)
	if err := WriteAll(r, dir, nil, Run{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range validJUnit(data) {
		t.Errorf("schema: %s", p)
	}
	var got parsedSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"local.kep6406-api":      {"field-stored@capacity-on", "reading@capacity-on"},
		"prototype.kep6406-api":  {"field-dropped@capacity-off", "field-stored@capacity-on"},
		"prototype.kep6406-skew": {"old-scheduler@defaults"},
	}
	outcomes := Outcomes(r)
	var tests, failures, skipped int
	for _, s := range got.Suites {
		var names []string
		for _, c := range s.Cases {
			names = append(names, c.Name)
			if c.Classname != s.Name {
				t.Errorf("case %s has classname %q in testsuite %q", c.Name, c.Classname, s.Name)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, want[s.Name]) {
			t.Errorf("testsuite %q holds %q, want %q", s.Name, names, want[s.Name])
		}
		delete(want, s.Name)
		if s.Tests != len(s.Cases) {
			t.Errorf("testsuite %q says tests=%d for %d cases", s.Name, s.Tests, len(s.Cases))
		}
		if s.Disabled != 0 {
			t.Errorf("testsuite %q says disabled=%d: nothing is disabled, skips are skipped", s.Name, s.Disabled)
		}
		tests, failures, skipped = tests+s.Tests, failures+s.Failures, skipped+s.Skipped
	}
	for name := range want {
		t.Errorf("no testsuite %q", name)
	}
	count := map[State]int{}
	for _, o := range outcomes {
		count[o.State]++
	}
	if tests != len(outcomes) || failures != count[Failed] || skipped != count[Skipped] {
		t.Errorf("testsuites count %d tests, %d failures, %d skipped; the outcomes are %d, %d failed, %d skipped", tests, failures, skipped, len(outcomes), count[Failed], count[Skipped])
	}
	if got.Tests != tests || got.Failures != failures || got.Errors != 0 || got.Disabled != 0 {
		t.Errorf("testsuites says tests=%d failures=%d errors=%d disabled=%d; its testsuites add up to %d, %d, 0, 0", got.Tests, got.Failures, got.Errors, got.Disabled, tests, failures)
	}
	if regexp.MustCompile(`"/|>/|\s/[a-z]`).Match(data) || strings.Contains(string(data), dir) {
		t.Errorf("an absolute path in the JUnit file:\n%s", data)
	}
}

// A failure's message says why on one line, and marks an informing one.
func TestJUnitFailuresSayWhyAndWhetherTheyBlock(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(ginkgoRun(dir), dir, nil, Run{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, JUnitFile))
	var got parsedSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	out := map[string]string{}
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				msgs[c.Classname+" "+c.Name] = c.Failure.Type + ": " + c.Failure.Message
			}
			out[c.Classname+" "+c.Name] = c.SystemOut
		}
	}
	if m := msgs["prototype.kep6406-api field-dropped@capacity-off"]; m != "failed: step 2 at suites/x.yaml:9, pod p1 is scheduled: want node n1 got none" {
		t.Errorf("blocking failure's message %q", m)
	}
	if m := msgs["local.kep6406-api reading@capacity-on"]; m != "informing: (informing: a contested reading of the KEP, never blocking) reading 3" {
		t.Errorf("informing failure's message %q", m)
	}
	if !strings.Contains(string(data), "<![CDATA[step 2 at suites/x.yaml:9, pod p1 is scheduled:\nwant node n1\ngot none]]>") {
		t.Errorf("the failure's whole message is not there as written:\n%s", data)
	}
	if o := out["prototype.kep6406-api field-dropped@capacity-off"]; !strings.Contains(o, "diagnostics: diagnostics/case.txt") {
		t.Errorf("system-out %q does not name the diagnostics file relative to the run's folder", o)
	}
}

// A set-up node that failed is no case, but CI must see the run fail.
func TestJUnitReportsAFailedSetUp(t *testing.T) {
	dir := t.TempDir()
	r := ginkgoRun(dir)
	r.SpecReports[0].State = types.SpecStateFailed
	r.SpecReports[0].Failure = types.Failure{Message: "the clusters did not start", Location: types.CodeLocation{FileName: "/home/someone/x/runner.go", LineNumber: 3}}
	data, err := JUnit(r, Outcomes(r), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range validJUnit(data) {
		t.Errorf("schema: %s", p)
	}
	if !strings.Contains(string(data), `<error message="the clusters did not start"`) || !strings.Contains(string(data), `errors="1"`) || strings.Contains(string(data), "/home/someone") {
		t.Errorf("the failed set-up is not an error without machine paths:\n%s", data)
	}
}
