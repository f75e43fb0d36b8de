package shards

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/internal/fsutil"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// MergeConfig is a `draconform merge`: the outputs of the shares of one
// plan (--shard i/n), joined into the output of one run.
type MergeConfig struct {
	// Dirs are the shares' output folders, Out the merged run's.
	Dirs []string
	Out  string
	// SuitesDir and FixturesDir are the specs the shares ran (empty: the
	// built-in ones); their digest must be the shares'.
	SuitesDir, FixturesDir string
	// Golden is the table the merged outcomes must match, if any.
	Golden  string
	Version string
	Command []string
	// Out gets the reports' summary, Err problems.
	Stdout, Stderr io.Writer
	// Whole prints the run's whole text (matrix, every list, verdicts), as
	// a certification bundle's log holds it.
	Whole bool
}

// errBadInput marks shares that do not make one run: exit 2, as for any
// input draconform refuses.
var errBadInput = errors.New("refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errBadInput}, args...)...)
}

// Merge joins the shares' outputs into one run's reports, golden check and
// verdicts, as a whole run of the plan would have written them, and
// returns the exit code: 2 for shares that are not one plan's, each
// complete, none twice; 1 for a merged run that fails.
func Merge(c MergeConfig) int {
	began := time.Now()
	recs, opts, err := c.prepare()
	if err != nil {
		fmt.Fprintln(c.Stderr, "draconform merge:", err)
		if errors.Is(err, errBadInput) {
			return 2
		}
		return 1
	}
	// The merged run's folder is a bundle's source (merge --bundle).
	if err := fsutil.OutputDir(c.Out); err != nil {
		fmt.Fprintln(c.Stderr, "draconform merge:", err)
		return 1
	}
	unlock, err := runner.LockOutput(c.Out)
	if err != nil {
		fmt.Fprintln(c.Stderr, "draconform merge:", err)
		return 2
	}
	defer unlock()
	var results []result
	var shares []string
	for _, r := range recs {
		shares = append(shares, r.Share.String())
		for _, p := range r.Processes {
			res := result{Shard: p.Shard, out: p.Out}
			if p.Err != "" {
				res.err = errors.New(p.Err)
			}
			results = append(results, res)
			if s := p.Out.Report.StartTime; !s.IsZero() && s.Before(began) {
				began = s
			}
		}
	}
	opts.Share = fmt.Sprintf("merged from shards %s of plan sha256:%s, suites sha256:%s", strings.Join(shares, ", "), recs[0].PlanDigest, recs[0].SuitesDigest)
	j := join(recs[0].Targets, recs[0].Providers, plan.Cells(opts.Plan), results)
	merged := runner.MergeReports(j.parts, began)
	errs := runner.Finish(opts, merged, j.cells, j.header)
	for _, f := range j.failed {
		fmt.Fprintf(c.Stderr, "draconform merge: cell %s\n", f)
	}
	for _, err := range errs {
		fmt.Fprintln(c.Stderr, "draconform merge:", err)
	}
	fmt.Fprintf(c.Stdout, "draconform merge: shards %s of plan sha256:%s into %s: %s\n", strings.Join(shares, ", "), recs[0].PlanDigest, c.Out, tally(merged))
	if !merged.SuiteSucceeded || len(errs) > 0 || len(j.failed) > 0 {
		return 1
	}
	return 0
}

// prepare reads and checks the shares, in the order of their numbers, and
// the options of the run they make: the plan expanded again from the
// specs, which must be the ones they ran.
func (c MergeConfig) prepare() ([]Record, runner.Options, error) {
	if len(c.Dirs) == 0 {
		return nil, runner.Options{}, refuse("no shard folder given (draconform merge --out DIR SHARD_DIR...)")
	}
	recs := make([]Record, len(c.Dirs))
	for i, d := range c.Dirs {
		r, err := ReadRecord(d)
		if err != nil {
			return nil, runner.Options{}, refuse("%v", err)
		}
		recs[i] = r
	}
	if err := CheckShares(c.Dirs, recs); err != nil {
		return nil, runner.Options{}, err
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Share.Index < recs[j].Share.Index })
	first := recs[0]
	digest, err := SuitesDigest(c.SuitesDir, c.FixturesDir)
	if err != nil {
		return nil, runner.Options{}, err
	}
	if digest != first.SuitesDigest {
		return nil, runner.Options{}, refuse("the suites merge reads (sha256:%s) are not the ones the shards ran (sha256:%s): give merge their --suites and --fixtures", digest, first.SuitesDigest)
	}
	sfs, ffs, sdir, fdir := specFS(c.SuitesDir, c.FixturesDir)
	b, err := loader.LoadNamed(sfs, sdir, ffs, fdir, steps.Kinds())
	if err != nil {
		return nil, runner.Options{}, err
	}
	sel := first.Selection
	cases := plan.Expand(b, plan.Filter{Cells: sel.Cells, Suites: sel.Suites})
	if d, err := PlanDigest(b, cases, first.Targets, sel); err != nil {
		return nil, runner.Options{}, err
	} else if d != first.PlanDigest {
		return nil, runner.Options{}, refuse("the shards' plan sha256:%s does not expand again from their suites and selection (sha256:%s)", first.PlanDigest, d)
	}
	var targets []runner.Target
	for _, t := range first.Targets {
		targets = append(targets, runner.Target{Name: t})
	}
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return nil, runner.Options{}, err
	}
	return recs, runner.Options{Bundle: b, Plan: cases, Targets: targets, OutDir: out, RunID: runner.NewRunID(), Log: c.Stdout,
		Golden: c.Golden, Complete: first.Complete, CompareWith: map[string]string{providers.LocalBinariesTarget: "prototype"},
		Focus: sel.Focus, LabelFilter: sel.LabelFilter, Version: c.Version, Command: c.Command, Verbose: c.Whole}, nil
}

// CheckShares says why the records of dirs are not the shares of one plan,
// each once and none missing, or nil.
func CheckShares(dirs []string, recs []Record) error {
	facts := make([]Summary, len(recs))
	for i, r := range recs {
		facts[i] = Summary{Share: r.Share, PlanDigest: r.PlanDigest, SuitesDigest: r.SuitesDigest}
		for _, p := range r.Processes {
			facts[i].Processes = append(facts[i].Processes, p.Shard.Name())
		}
	}
	return CheckSummaries(dirs, facts)
}

// CheckSummaries is CheckShares of what a merged bundle recorded of its
// shares, names saying where each is.
func CheckSummaries(names []string, recs []Summary) error {
	first := recs[0]
	byIndex := map[int]string{}
	ranBy := map[string]string{}
	for i, r := range recs {
		d := names[i]
		switch {
		case r.SuitesDigest != first.SuitesDigest:
			return refuse("shards of different suites: %s ran suites sha256:%s, %s sha256:%s", names[0], first.SuitesDigest, d, r.SuitesDigest)
		case r.PlanDigest != first.PlanDigest:
			return refuse("shards of different plans: %s is of plan sha256:%s, %s of sha256:%s", names[0], first.PlanDigest, d, r.PlanDigest)
		case r.Share.Count != first.Share.Count:
			return refuse("shards of different splits: %s is shard %s, %s shard %s", names[0], first.Share, d, r.Share)
		case r.Share.Index < 1 || r.Share.Index > r.Share.Count:
			return refuse("%s is shard %s, which no split has", d, r.Share)
		}
		if other, ok := byIndex[r.Share.Index]; ok {
			return refuse("overlapping shards: %s and %s are both shard %s", other, d, r.Share)
		}
		byIndex[r.Share.Index] = d
		for _, name := range r.Processes {
			if other, ok := ranBy[name]; ok {
				return refuse("overlapping shards: %s and %s both ran %s", other, d, name)
			}
			ranBy[name] = d
		}
	}
	var missing []string
	for i := 1; i <= first.Share.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, Share{i, first.Share.Count}.String())
		}
	}
	if len(missing) > 0 {
		given := make([]string, 0, len(byIndex))
		for _, r := range recs {
			given = append(given, r.Share.String())
		}
		slices.Sort(given)
		return refuse("missing shard %s of the plan (given: %s)", strings.Join(missing, ", "), strings.Join(given, ", "))
	}
	return nil
}
