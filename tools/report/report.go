// Package report turns ginkgo's report into what a person reads after a run:
// a matrix of suites × cells, the failures with their diagnostics, the
// skips with their reasons, and JUnit and JSON files for machines.
package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// Outcome is one case in one cell.
type Outcome struct {
	ID          string  `json:"id"`
	Target      string  `json:"target,omitempty"`
	Suite       string  `json:"suite"`
	Cell        string  `json:"cell"`
	State       State   `json:"state"`
	Message     string  `json:"message,omitempty"`
	Contested   bool    `json:"contested,omitempty"`
	Known       bool    `json:"knownIssue,omitempty"`
	Informing   bool    `json:"informing,omitempty"`
	Seconds     float64 `json:"seconds"`
	Diagnostics string  `json:"diagnostics,omitempty"`
	// Kept says what --keep-on-failure left of a failed case on its
	// cluster and how to reach it.
	Kept string `json:"kept,omitempty"`
	// Note says which of several accepted outcomes a case saw.
	Note string `json:"note,omitempty"`
	// Cause is a stable, machine-independent word for why a case has its
	// state where the state alone hides it: the skip reason, a start-up
	// refusal counted as passed, a cluster that failed to start. The golden
	// table records it beside the state.
	Cause string `json:"cause,omitempty"`
	// Gap says, for a case that pins an upstream gap, whether this cluster
	// still has it ("present") or has closed it ("closed").
	Gap string `json:"gap,omitempty"`
	// Measurements are figures the case's steps measured, reported beside
	// the outcome and never compared with the golden table.
	Measurements []string `json:"measurements,omitempty"`
	// Inapplicable marks a skip because the case does not apply to this
	// cluster (its cell cannot run here, the field or the consumable
	// capacity is in another state, components cannot be restarted):
	// a verdict leaves it out instead of counting it against a claim.
	Inapplicable bool `json:"inapplicable,omitempty"`
	// Began is when the case itself began, for report.html's timeline;
	// zero in a report from before it was recorded.
	Began time.Time `json:"-"`
}

// Report entry names the runner writes and Outcomes reads.
const (
	EntryCause       = "cause"
	EntryGap         = "gap"
	EntryDiagnostics = "diagnostics"
	EntryKept        = "kept"
	EntryNote        = "outcome"
	EntryMeasurement = "measurement"
	// EntrySeconds is how long the case itself took, where its spec
	// only waited for a case run beside others.
	EntrySeconds = "case seconds"
	// EntryInapplicable marks a skip as Inapplicable.
	EntryInapplicable = "inapplicable"
	// EntryBegan is when the case itself began (RFC 3339), where its spec
	// may have begun later, waiting for a case run beside others.
	EntryBegan = "case began"
)

// Causes the runner records.
const (
	CauseCellStart     = "the cell's cluster failed to start"
	CauseContradicted  = "the cluster is not in the state its gates promise"
	CauseNodeStart     = "the kubelet node failed to start"
	CauseStartRefused  = "the control plane refused the cell's gates at start, an accepted outcome"
	CauseCellUnsupport = "the provider cannot run this cell"
	// CauseGatesNotOffered is a case whose restart asks a component for
	// gates its binary does not take (locked, removed, or needed by an
	// enabled gate): it does not apply there, as a cell would not.
	CauseGatesNotOffered = "a component's binary does not offer the gates a restart asks for"
	// CauseProbe is an API server that started and refused the probe's
	// dry-run writes: behaviour, not a start failure (a mutant that keeps
	// the field with its gate off and then forbids it is caught so).
	CauseProbe = "the API server rejected the probe's dry-run writes"
	// CauseNotRun is a case --fail-fast kept from beginning after a
	// blocking failure.
	CauseNotRun = "not run: --fail-fast stopped the run"
)

// StartFailure says whether the outcome failed because a cluster or node
// did not start, rather than for anything a case checked.
func (o Outcome) StartFailure() bool {
	return o.State == "failed" && (o.Cause == CauseCellStart || o.Cause == CauseNodeStart)
}

// Name is the outcome's id with its target, as reports show it.
func (o Outcome) Name() string { return Title(o.Target, o.ID) }

// Column is the matrix column of the outcome: its target and cell.
func (o Outcome) Column() string {
	if o.Target == "" {
		return o.Cell
	}
	return o.Target + "/" + o.Cell
}

// CaseSeconds is how long a case took: what it recorded, else its spec's
// run time (a report from before cases ran beside each other).
func CaseSeconds(s types.SpecReport) float64 {
	for _, e := range s.ReportEntries {
		if e.Name != EntrySeconds {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(e.StringRepresentation(), &v); err == nil {
			return v
		}
	}
	return s.RunTime.Seconds()
}

// Outcomes extracts the cases from a ginkgo report.
func Outcomes(r types.Report) []Outcome {
	var out []Outcome
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		var k Key
		found := false
		for _, e := range s.ReportEntries {
			if e.Name == EntryKey {
				k, found = keyOf(e.Value)
			}
		}
		if !found {
			continue // not a draconform case
		}
		o := Outcome{ID: k.ID(), Target: k.Target, Suite: k.Suite, Cell: k.Cell, Contested: k.Contested, Known: k.Known, Informing: k.Informing, Seconds: CaseSeconds(s)}
		switch {
		case s.State.Is(types.SpecStatePassed):
			o.State = Passed
		case s.State.Is(types.SpecStateSkipped|types.SpecStatePending) && s.Failure.Message == "":
			// Not selected by --focus or --label-filter: not part of this run.
			continue
		case s.State.Is(types.SpecStateSkipped | types.SpecStatePending):
			o.State = Skipped
			o.Message = s.Failure.Message
		default:
			o.State = Failed
			o.Message = s.Failure.Message
		}
		for _, e := range s.ReportEntries {
			switch e.Name {
			case EntryDiagnostics:
				o.Diagnostics = e.StringRepresentation()
			case EntryKept:
				o.Kept = e.StringRepresentation()
			case EntryNote:
				o.Note = e.StringRepresentation()
			case EntryCause:
				o.Cause = e.StringRepresentation()
			case EntryGap:
				o.Gap = e.StringRepresentation()
			case EntryInapplicable:
				o.Inapplicable = true
			case EntryBegan:
				o.Began, _ = time.Parse(time.RFC3339Nano, e.StringRepresentation())
			case EntryMeasurement:
				o.Measurements = append(o.Measurements, e.StringRepresentation())
			}
		}
		out = append(out, o)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// The files a run writes into its output folder. Bundles, Sonobuoy results
// and flake checks read them by these names.
const (
	JSONFile     = "report.json"
	JUnitFile    = "junit.xml"
	OutcomesFile = "outcomes.json"
	VerdictsFile = "verdicts.json"
	// FactsFile holds what each cell ran on (the runner's cell facts).
	FactsFile  = "cluster-facts.json"
	HTMLFile   = "report.html"
	MatrixFile = "matrix.txt"
	// TimingsFile holds when each cell's cluster started and stopped: a
	// run over several processes writes it, report.html draws it.
	TimingsFile = "timings.json"
)

// Run is what a run adds to ginkgo's report: the cells in the order
// cells.yaml lists them, a header saying what each cell ran on, the
// verdicts, the cells' facts (written as FactsFile), and what report.html
// says of the run as a whole.
type Run struct {
	CellOrder []string
	Header    string
	Verdicts  []Verdict
	Facts     any
	About     About
	// Rerun gives the rerun command of a target that --provider alone
	// does not name (see RerunFlags).
	Rerun RerunFlags
	// Verbose prints the whole text to the terminal, as MatrixFile holds
	// it, instead of the Summary.
	Verbose bool
}

// About is what report.html's header says of a run as a whole.
type About struct {
	RunID string
	// Began and Seconds: when the run began and how long it took; zero
	// where the ginkgo report says.
	Began   time.Time
	Seconds float64
	Version string
	// Command is the run's command line as typed (os.Args); the page
	// shows it without credentials or machine paths.
	Command []string
	// Golden is the golden table's result in a line, "" where none was
	// compared; GoldenDiffs counts the outcomes that differ from it.
	Golden      string
	GoldenDiffs int
	// Shard says which share of a split plan the run is (--shard), or
	// which shares it merged; "" for a whole run.
	Shard string
}

// WriteAll writes the run's files (the constants above) under dir and
// prints the header, the matrix and the verdicts to w.
func WriteAll(r types.Report, dir string, w io.Writer, run Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := reporters.GenerateJSONReport(r, path(JSONFile)); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	outcomes := Outcomes(r)
	if err := writeJUnit(path(JUnitFile), r, outcomes); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	for name, v := range map[string]any{OutcomesFile: outcomes, VerdictsFile: run.Verdicts, FactsFile: run.Facts} {
		if err := writeJSON(path(name), v); err != nil {
			return err
		}
	}
	html, err := os.Create(path(HTMLFile))
	if err != nil {
		return err
	}
	if run.About.Began.IsZero() {
		run.About.Began, run.About.Seconds = r.StartTime, r.RunTime.Seconds()
	}
	if run.About.Seconds == 0 && !run.About.Began.IsZero() {
		// Written from inside the suite, whose report has no end yet.
		run.About.Seconds = time.Since(run.About.Began).Seconds()
	}
	if err := HTML(html, outcomes, run, dir); err != nil {
		html.Close()
		return fmt.Errorf("%s: %w", HTMLFile, err)
	}
	if err := html.Close(); err != nil {
		return err
	}
	reports := fmt.Sprintf("\nreports: %s, %s, %s, %s\n", path(HTMLFile), path(JSONFile), path(JUnitFile), path(OutcomesFile))
	text := run.Header + "\n" + Matrix(outcomes, run.CellOrder) + Details(outcomes, run.Rerun) + "\n" + VerdictLines(run.Verdicts) + reports
	if err := os.WriteFile(path(MatrixFile), []byte(text), 0o644); err != nil {
		return err
	}
	if w == nil {
		return nil
	}
	if run.Verbose {
		fmt.Fprint(w, "\n"+text)
		return nil
	}
	// What each cell ran on and the suites × cells matrix stay in
	// MatrixFile: the terminal keeps to what fits a screen.
	fmt.Fprint(w, "\n"+Summary(outcomes, run)+fmt.Sprintf("reports: %s (the cells' matrix and what each ran on: %s)\n", path(HTMLFile), path(MatrixFile)))
	return nil
}
