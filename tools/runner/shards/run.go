package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/internal/logtail"
	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/runner"
)

// Config is one sharded run.
type Config struct {
	Options runner.Options
	// ProviderNames are the --provider of each of Options.Targets.
	ProviderNames []string
	// Parallel is how many processes run at once.
	Parallel int
	// Common is what each shard's process is started with besides its
	// share of the plan (see Request).
	Common Common
	// Share, when set (--shard i/n), runs only that share of the plan's
	// processes and records it for `draconform merge`; Cells is the
	// run's --cells, which the record keeps.
	Share Share
	Cells []string
	// Out gets progress, Err problems.
	Out, Err io.Writer
	// startLineAfter is how long a cell runs before its start line is
	// printed (StartLineAfter in Run; tests print at once).
	startLineAfter time.Duration
}

// StartLineAfter is how long a cell runs before the progress says it
// started: a cell that ends sooner (one its provider cannot run, a short
// one) is a single line, and a long one is never silent for longer.
const StartLineAfter = 3 * time.Second

// result is what came back from one shard process.
type result struct {
	Shard
	out     runner.Shard
	err     error
	log     string
	seconds float64
}

// Run runs every cell of the plan in a process of its own, c.Parallel at a
// time, then merges what they wrote into the run's reports, golden check
// and verdicts. It returns the exit code.
func Run(ctx context.Context, c Config) int {
	began := time.Now()
	c.startLineAfter = StartLineAfter
	shards, nodeBuilt, code := c.prepare(ctx)
	if code != 0 {
		return code
	}
	rec, err := c.record(shards)
	if err != nil {
		fmt.Fprintln(c.Err, "draconform:", err)
		return 2
	}
	if rec != nil {
		shards = Assign(shards, c.Share.Count)[c.Share.Index-1]
		fmt.Fprintf(c.Out, "draconform: shard %s of plan sha256:%s (suites sha256:%s): %s of the plan's\n", c.Share, rec.PlanDigest, rec.SuitesDigest, textline.Count(len(shards), "process"))
		// A share is a part of the run: it cannot miss the rest, nor
		// support a claim; the merge of all of them can.
		c.Options.Complete = false
		c.Options.Share = fmt.Sprintf("%s of plan sha256:%s, suites sha256:%s", c.Share, rec.PlanDigest, rec.SuitesDigest)
	}
	dir := filepath.Join(c.Options.OutDir, "shards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(c.Err, "draconform:", err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(c.Err, "draconform: finding draconform's own binary:", err)
		return 1
	}
	n := min(c.Parallel, len(shards))
	cells := map[string]bool{}
	for _, sh := range shards {
		cells[sh.Key()] = true
	}
	fmt.Fprintf(c.Out, "draconform: %s in %s, each on a cluster of its own (long cells split into parts), %d at a time (--parallel); their logs: %s\n", textline.Count(len(cells), "cell"), textline.Count(len(shards), "process"), n, dir)
	env := Env(os.Environ(), runtime.NumCPU(), n)
	results := c.runAll(ctx, shards, n, func(sh Shard) result {
		return runOne(ctx, self, c.request(sh, filepath.Join(dir, sh.Slug()+".json"), nodeBuilt), env, sh, dir)
	})
	merged, code := c.merge(results, began, n, rec)
	fmt.Fprintf(c.Out, "draconform: %s in %.1fs (%s for %s, %d at a time)\n", tally(merged), time.Since(began).Seconds(), textline.Count(len(shards), "process"), textline.Count(len(cells), "cell"), n)
	return code
}

// prepare builds the node's binaries while the providers read their
// binaries' gates for the plan (a second each, one after the other
// before), and plans the shards.
func (c *Config) prepare(ctx context.Context) (shards []Shard, nodeBuilt bool, code int) {
	opts := c.Options
	selected, err := runner.Selection(opts.Focus, opts.LabelFilter)
	if err != nil {
		fmt.Fprintln(c.Err, "draconform:", err)
		return nil, false, 2
	}
	type nodeBuild struct {
		built bool
		code  int
	}
	nodes := make(chan nodeBuild, 1)
	go func() {
		built, code := ensureNodeBinaries(ctx, opts, c.Err)
		nodes <- nodeBuild{built, code}
	}()
	recordBinaryFacts(ctx, opts, c.Err)
	shards = Plan(opts.Plan, opts.Targets, c.ProviderNames, CellSupport(ctx, opts), selected, opts.CaseParallel)
	nb := <-nodes
	if len(shards) == 0 {
		fmt.Fprintln(c.Err, "draconform: no case matches --focus and --label-filter")
		return nil, false, 1
	}
	// The cells' nodes run what was just built: a cell that rebuilt it
	// would rewrite the image archives another cell is importing.
	return shards, nb.built, nb.code
}

// runAll has n workers take the shards in the planned order, costliest
// first (a goroutine per shard racing for a slot would start them in any
// order), printing a line as each cell starts and ends. A shard never started is "not run".
func (c *Config) runAll(ctx context.Context, shards []Shard, n int, run func(Shard) result) []result {
	results := make([]result, len(shards))
	next := make(chan int)
	// --fail-fast stops the feeding, not the processes running.
	feed, stopFeeding := context.WithCancelCause(ctx)
	defer stopFeeding(nil)
	go func() {
		defer close(next)
		for i := range shards {
			select {
			case next <- i:
			case <-feed.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	prog := newProgress(c.Out, shards)
	prog.startLineAfter = c.startLineAfter
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if feed.Err() != nil {
					// select picks at random among ready cases: a shard
					// handed over as the feeding stopped does not start.
					continue
				}
				prog.start(shards[i], time.Now())
				res := run(shards[i])
				results[i] = res
				prog.end(res, time.Now())
				if why := c.failsFast(res); why != nil {
					stopFeeding(why)
				}
			}
		}()
	}
	wg.Wait()
	for i := range results {
		if results[i].Target == "" {
			results[i] = result{Shard: shards[i], err: fmt.Errorf("not run: %w", context.Cause(feed))}
		}
	}
	return results
}

// merge joins the shards' reports in the order the cells are listed, not
// the order they finished (a cell's parts in order, its facts and header
// from the first), writes the run's timings, and finishes the run as one.
func (c *Config) merge(results []result, began time.Time, n int, rec *Record) (types.Report, int) {
	opts := c.Options
	var targets []string
	for _, t := range opts.Targets {
		targets = append(targets, t.Name)
	}
	j := join(targets, c.ProviderNames, plan.Cells(opts.Plan), results)
	merged := runner.MergeReports(j.parts, began)
	if err := writeTimings(filepath.Join(opts.OutDir, runner.TimingsFile), began, n, j.timings); err != nil {
		fmt.Fprintln(c.Err, "draconform:", err)
	}
	if rec != nil {
		for _, res := range results {
			p := Process{Shard: res.Shard, Out: res.out}
			if res.err != nil {
				p.Err = res.err.Error()
			}
			rec.Processes = append(rec.Processes, p)
		}
		if err := writeRecord(opts.OutDir, *rec); err != nil {
			fmt.Fprintln(c.Err, "draconform:", err)
			return merged, 1
		}
	}
	errs := runner.Finish(opts, merged, j.cells, j.header)
	for _, f := range j.failed {
		fmt.Fprintf(c.Err, "draconform: cell %s\n", f)
	}
	for _, err := range errs {
		fmt.Fprintln(c.Err, "draconform:", err)
	}
	if !merged.SuiteSucceeded || len(errs) > 0 || len(j.failed) > 0 {
		return merged, 1
	}
	return merged, 0
}

// joined is what a run's processes wrote, in the order of its targets and
// cells, not the order they finished: a cell's parts in order, its facts
// and header from the first.
type joined struct {
	parts   []runner.Shard
	cells   []runner.CellFacts
	timings []runner.CellTiming
	header  string
	failed  []string
}

func join(targets, providerNames []string, cells []*spec.Cell, results []result) joined {
	var j joined
	byKey := map[string][]result{}
	for _, res := range results {
		byKey[res.Key()] = append(byKey[res.Key()], res)
	}
	var header strings.Builder
	for i, t := range targets {
		for _, cell := range cells {
			list := byKey[t+"/"+cell.Name]
			sort.Slice(list, func(a, b int) bool { return list[a].Part < list[b].Part })
			first := true
			for _, res := range list {
				if res.err != nil {
					j.failed = append(j.failed, fmt.Sprintf("%s (provider %s): %v", res.Name(), providerNames[i], res.err))
					continue
				}
				j.parts = append(j.parts, res.out)
				for _, tm := range res.out.Timings {
					if res.Parts > 1 {
						tm.Part = res.Part
					}
					j.timings = append(j.timings, tm)
				}
				if first {
					j.cells = append(j.cells, res.out.Cells...)
					header.WriteString(res.out.Header)
					first = false
				}
			}
		}
	}
	j.header = header.String()
	return j
}

// runOne runs one shard process, this program again started with the
// shard's Request (see ServeChild), and reads what it wrote.
func runOne(ctx context.Context, self string, q Request, env []string, sh Shard, dir string) result {
	res := result{Shard: sh, log: filepath.Join(dir, sh.Slug()+".log")}
	began := time.Now()
	defer func() { res.seconds = time.Since(began).Seconds() }()
	out := filepath.Join(dir, sh.Slug()+".json")
	_ = os.Remove(out)
	logFile, err := os.Create(res.log)
	if err != nil {
		res.err = err
		return res
	}
	defer logFile.Close()
	reqPath := filepath.Join(dir, sh.Slug()+".request.json")
	if err := writeRequest(reqPath, q); err != nil {
		res.err = err
		return res
	}
	// The arguments only name the process for ps; the request is the
	// protocol, and a program that does not serve it refuses "shard".
	cmd := exec.CommandContext(ctx, self, "shard", sh.Slug())
	cmd.Env = childEnv(env, reqPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	runErr := runChild(cmd, 2*time.Minute)
	res.seconds = time.Since(began).Seconds()
	res.out, err = runner.ReadShard(out)
	if err != nil {
		// A shard whose cases failed still writes its report; one that
		// wrote none died before or while reporting.
		res.err = fmt.Errorf("wrote no report (%v; exit: %v); the end of its log, %s:\n%s", err, runErr, res.log, lastLines(res.log, 15))
	}
	return res
}

// childEnv is a shard process's environment: env, shared by every shard,
// and its own request. It never writes into env's array: appended to in
// place, env's spare room held whichever request was written last, and two
// shards started together ran the same part of a cell, in one folder (its
// config read by both schedulers, each binding the other's pods) while
// another part wrote no report.
func childEnv(env []string, reqPath string) []string {
	return append(slices.Clip(env), RequestEnv+"="+reqPath)
}

// lastLines is the end of a file, indented, for an error.
func lastLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return "  " + strings.ReplaceAll(logtail.Lines(string(data), n), "\n", "\n  ")
}

// tally counts a report's cases by state, as a line.
func tally(r types.Report) string {
	passed, failed, skipped := counts(r)
	return fmt.Sprintf("%d passed, %d failed, %d skipped", passed, failed, skipped)
}

func writeTimings(path string, began time.Time, n int, cells []runner.CellTiming) error {
	data, err := json.MarshalIndent(runner.RunTimings{Began: began, Seconds: time.Since(began).Seconds(), Parallel: n, Cells: cells}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// AppendLogs appends the cells' own logs of a sharded run in outDir to w,
// each under a heading, in the order of their names.
func AppendLogs(w io.Writer, outDir string) {
	logs, _ := filepath.Glob(filepath.Join(outDir, "shards", "*.log"))
	sort.Strings(logs)
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			fmt.Fprintf(w, "\n===== %s: %v =====\n", filepath.Base(l), err)
			continue
		}
		fmt.Fprintf(w, "\n===== the cell's own output: %s =====\n%s", strings.TrimSuffix(filepath.Base(l), ".log"), data)
	}
}
