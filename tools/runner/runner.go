// Package runner turns a plan into a ginkgo tree: one DescribeTable per
// suite, one Entry per case and cell, labelled so that --label-filter and
// --focus select them. Clusters start once per cell before the specs run.
package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // ginkgo's DSL reads best unqualified.
	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/suites/profiles"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// Target is one implementation under test: a provider whose clusters run
// every cell of the plan.
type Target struct {
	Name     string
	Provider cluster.Provider
}

// Options configure a run.
type Options struct {
	Bundle  *loader.Bundle
	Plan    []plan.Case
	Targets []Target
	// OutDir receives kubeconfigs, component logs, diagnostics and reports.
	OutDir string
	// RunID makes every name the run creates unique on a shared cluster.
	RunID string
	Log   io.Writer
	// CaseTimeout bounds one case, cleanup included.
	CaseTimeout time.Duration
	// Golden, if set, is the table of expected outcomes the run must
	// match; with UpdateGolden the run writes it instead.
	Golden       string
	UpdateGolden bool
	// Complete says no selection (--focus, --label-filter, --cells,
	// --suite) narrowed the run: every golden outcome of an implementation
	// it ran must then be in it.
	Complete bool
	// GoldenAs compares a target's outcomes with another implementation's
	// golden ones (prototype-static=prototype).
	GoldenAs map[string]string
	// CompareWith lists, as information and never as a failure, how a
	// target the golden table does not know differs from an
	// implementation it does (binaries from elsewhere against the
	// prototype's outcomes).
	CompareWith map[string]string
	// Profile is the driver the driverProfile cases run on; nil means
	// draconform's test driver.
	Profile *spec.DriverProfile
	// Focus (a regular expression over a case's suite and title) and
	// LabelFilter (ginkgo's label syntax) select cases. The runner selects
	// them itself rather than ginkgo, so that it knows which cases to run
	// ahead of their specs.
	Focus, LabelFilter string
	// CaseParallel is how many cases of this process run at once, beside
	// each other on their cells' clusters; 0 or 1 runs them one at a time,
	// each in its spec.
	CaseParallel int
	// ShardOut, when set, makes this run one shard of a run split over
	// processes (see Shard): it writes its ginkgo report and cells there,
	// and the parent writes the reports and checks the golden table.
	ShardOut string
	// Version and Command (the command line as typed) are what report.html
	// says ran.
	Version string
	Command []string
	// Rerun gives, by target, the flags that rerun a case on it where
	// --provider <target> would not (binaries from elsewhere, a
	// kubeconfig): the rerun commands a failure prints carry them.
	Rerun report.RerunFlags
	// FailFast stops the run after its first blocking failure: no case
	// begins after it, and those left are reported as not run.
	FailFast bool
	// KeepOnFailure leaves a failed case's namespace and the objects in
	// it on its cluster (see keep.go), and says how to reach it as the
	// target's provider says (cluster.Info's Kubectl and Gone).
	KeepOnFailure bool
	// Verbose prints the run's whole text at its end (what each cell ran
	// on, the matrix, every skip), not the summary that fits a screen.
	Verbose bool
	// Share says which share of a plan split with --shard this run is, or
	// which shares a merge joined, for report.html.
	Share string
}

// Finish writes a run's reports from its ginkgo report and cells, then
// checks the golden table and the verdicts; it returns what failed the run.
// The last ginkgo process of a run calls it, or the parent of a sharded one.
func Finish(opts Options, r types.Report, cells []CellFacts, header string) []error {
	outcomes := report.Outcomes(r)
	var verdicts []report.Verdict
	if opts.Bundle != nil {
		verdicts = report.Verdicts(plan.Claims(opts.Bundle, opts.Plan), outcomes, CellStates(cells), opts.Complete)
	}
	var errs []error
	// The golden table is checked first, for report.html to say its
	// result, and what the check prints follows the matrix as before.
	var goldenLog bytes.Buffer
	gopts := opts
	gopts.Log = &goldenLog
	golden, diffs, goldenErr := checkGolden(gopts, outcomes)
	about := report.About{RunID: opts.RunID, Version: opts.Version, Command: opts.Command, Golden: golden, GoldenDiffs: diffs, Shard: opts.Share}
	if err := report.WriteAll(r, opts.OutDir, opts.Log, report.Run{CellOrder: cellOrder(opts), Header: header, Verdicts: verdicts, Facts: cells, About: about, Rerun: opts.Rerun, Verbose: opts.Verbose}); err != nil {
		errs = append(errs, fmt.Errorf("writing reports: %w", err))
	}
	if opts.Log != nil {
		_, _ = io.Copy(opts.Log, &goldenLog)
	}
	if goldenErr != nil {
		errs = append(errs, goldenErr)
	}
	if missing := Missing(opts, outcomes); len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%d planned cases have no outcome, so the run did not finish (interrupted, or a cell's process failed): %s", len(missing), firstFew(missing, 5)))
	}
	for _, v := range verdicts {
		if v.State == report.NotConformant {
			errs = append(errs, fmt.Errorf("verdict: %s is not conformant on %s: %s", v.Claim, v.Target, v.Reason))
		}
	}
	return errs
}

// Missing lists, for a complete run, the planned cases of every target
// that have no outcome: a run that ends early leaves them, and a verdict
// must not read their absence as "did not apply". A narrowed run selects
// cases by design, so nothing is missing from it.
func Missing(opts Options, outcomes []report.Outcome) []string {
	if !opts.Complete {
		return nil
	}
	have := map[string]bool{}
	for _, o := range outcomes {
		have[o.Name()] = true
	}
	var out []string
	for _, t := range opts.Targets {
		for _, c := range opts.Plan {
			if name := report.Title(t.Name, c.ID); !have[name] {
				out = append(out, name)
			}
		}
	}
	return out
}

func firstFew(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

// Register builds the ginkgo tree for opts. Call it once, before RunSpecs.
// It fails for a focus or label filter that does not parse.
func Register(opts Options) error {
	if opts.CaseTimeout == 0 {
		opts.CaseTimeout = 5 * time.Minute
	}
	if opts.Profile == nil {
		p, err := loader.LoadProfileFS(profiles.FS, profiles.TestDriver)
		if err != nil {
			panic("the built-in driver profile does not load: " + err.Error())
		}
		opts.Profile = p
	}
	selected, err := selectCases(opts)
	if err != nil {
		return err
	}
	s := newSession(opts)
	SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		return s.start(ctx)
	}, func(ctx SpecContext, data []byte) {
		if err := s.adopt(data); err != nil {
			Fail("reading the clusters process 1 started: " + err.Error())
		}
		// Under ginkgo -p each process runs the specs ginkgo hands it;
		// only a lone process knows every case it will run.
		if suiteCfg, _ := GinkgoConfiguration(); opts.CaseParallel > 1 && suiteCfg.ParallelTotal == 1 {
			s.pool = startPool(s, selected, opts.CaseParallel)
		}
	}, NodeTimeout(15*time.Minute))
	SynchronizedAfterSuite(func() { s.pool.stop() }, func(ctx SpecContext) {
		s.stop(ctx)
	}, NodeTimeout(2*time.Minute))
	ReportAfterSuite("draconform report", func(r types.Report) {
		if opts.ShardOut != "" {
			// One cell of a run split over processes: the parent merges
			// the shards and writes the run's reports.
			if err := writeShard(opts.ShardOut, Shard{Report: r, Cells: s.cellFacts(), Header: s.describe(), Timings: s.timings()}); err != nil {
				Fail(err.Error())
			}
			return
		}
		for _, err := range Finish(opts, r, s.cellFacts(), s.describe()) {
			Fail(err.Error())
		}
	})
	describeCases(s, selected)
	return nil
}

// selectCases are the cases of the plan, on each target, that the focus
// and label filter select, suite by suite.
func selectCases(opts Options) ([]plan.Case, error) {
	sel, err := newSelection(opts.Focus, opts.LabelFilter)
	if err != nil {
		return nil, err
	}
	var selected []plan.Case
	for _, group := range bySuite(opts.Plan) {
		for _, t := range opts.Targets {
			for _, c := range group {
				if c := c.ForTarget(t.Name); sel.matches(c) {
					selected = append(selected, c)
				}
			}
		}
	}
	return selected, nil
}

// describeCases makes a ginkgo table of each suite's selected cases.
func describeCases(s *session, selected []plan.Case) {
	for _, group := range bySuite(selected) {
		suite := group[0].Suite
		entries := make([]TableEntry, 0, len(group))
		for _, c := range group {
			// No spec timeout: a case bounds its steps by CaseTimeout and
			// its clean-up apart, and a spec may wait for a case that runs
			// beside others.
			args := []any{Label(c.Labels...)}
			if c.Alone {
				args = append(args, Serial)
			}
			args = append(args, c)
			entries = append(entries, Entry(c.Title(), args...))
		}
		Describe(suite.Name, func() {
			DescribeTable(suite.Description, func(ctx SpecContext, c plan.Case) {
				runCase(ctx, s, c)
			}, entries)
		})
	}
}

func bySuite(cases []plan.Case) [][]plan.Case {
	var out [][]plan.Case
	index := map[string]int{}
	for _, c := range cases {
		i, ok := index[c.Suite.Name]
		if !ok {
			i = len(out)
			index[c.Suite.Name] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

func cellOrder(opts Options) []string {
	if opts.Bundle != nil {
		return opts.Bundle.CellOrder
	}
	var out []string
	for _, c := range plan.Cells(opts.Plan) {
		out = append(out, c.Name)
	}
	return out
}

// checkGolden compares the run with the golden outcomes, or records them.
// It returns the result in a line for report.html and how many outcomes
// differ.
func checkGolden(opts Options, outcomes []report.Outcome) (string, int, error) {
	switch {
	case opts.Golden == "":
		return "", 0, nil
	case opts.UpdateGolden:
		// A run of some suites or cells updates their outcomes and keeps
		// the rest of the table.
		g, err := report.LoadGolden(opts.Golden)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", 0, err
		}
		if g == nil {
			g = report.Golden{}
		}
		g.Merge(outcomes, opts.GoldenAs)
		if err := g.Save(opts.Golden); err != nil {
			return "", 0, fmt.Errorf("writing golden outcomes: %w", err)
		}
		fmt.Fprintf(opts.Log, "golden outcomes written to %s\n", opts.Golden)
		return "written to " + opts.Golden + " (--update-golden)", 0, nil
	}
	g, err := report.LoadGolden(opts.Golden)
	if err != nil {
		return "", 0, err
	}
	res, err := g.Check(outcomes, opts.Complete, opts.GoldenAs)
	if err != nil {
		return "", 0, err
	}
	if len(res.NotCompared) > 0 {
		fmt.Fprintf(opts.Log, "not compared with the golden table %s, which has no outcomes of: %s\n", opts.Golden, strings.Join(res.NotCompared, ", "))
	}
	for from, to := range opts.CompareWith {
		compareWith(opts, g, outcomes, from, to)
	}
	if len(res.Diffs) > 0 {
		return textline.Count(len(res.Diffs), "deviation") + " from " + opts.Golden, len(res.Diffs), fmt.Errorf("%d outcomes differ from the golden table %s (if the change is meant, rerun with --update-golden):\n  %s",
			len(res.Diffs), opts.Golden, strings.Join(res.Diffs, "\n  "))
	}
	switch {
	case len(res.Compared) == 0:
		fmt.Fprintf(opts.Log, "nothing was compared with the golden table %s\n", opts.Golden)
		return "nothing compared with " + opts.Golden, 0, nil
	case opts.Complete:
		fmt.Fprintf(opts.Log, "every outcome of %s matches the golden table %s, and none is missing\n", strings.Join(res.Compared, ", "), opts.Golden)
	default:
		fmt.Fprintf(opts.Log, "every outcome of %s matches the golden table %s (a narrowed run: outcomes it did not run were not checked)\n", strings.Join(res.Compared, ", "), opts.Golden)
	}
	return fmt.Sprintf("matches %s (%s)", opts.Golden, strings.Join(res.Compared, ", ")), 0, nil
}

// compareWith prints how target from's outcomes differ from to's golden
// ones, for information.
func compareWith(opts Options, g report.Golden, outcomes []report.Outcome, from, to string) {
	var mine []report.Outcome
	for _, o := range outcomes {
		if o.Target == from {
			mine = append(mine, o)
		}
	}
	if len(mine) == 0 {
		return
	}
	res, err := g.Check(mine, opts.Complete, map[string]string{from: to})
	if err != nil {
		fmt.Fprintf(opts.Log, "%s not compared with %s: %v\n", from, to, err)
		return
	}
	if len(res.Diffs) == 0 {
		fmt.Fprintf(opts.Log, "%s: every outcome equals %s's golden outcome (information)\n", from, to)
		return
	}
	fmt.Fprintf(opts.Log, "%s: %d outcomes differ from %s's golden outcomes (information, not a failure; the outcome shown as %s's is %s's):\n  %s\n",
		from, len(res.Diffs), to, to, from, strings.Join(res.Diffs, "\n  "))
}
