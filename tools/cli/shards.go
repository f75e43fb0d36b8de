package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner"
)

// shardArgs are the command line of one shard: the run's own selection and
// options, narrowed to one implementation and one cell.
func (r runRequest) shardArgs(sh shard, outDir, shardOut, runID string) []string {
	args := []string{"run", "--provider", sh.provider, "--cells", sh.cell, "--out", outDir,
		"--shard-out", shardOut, "--run-id", runID, "--parallel", "1",
		"--case-timeout", r.caseTimeout.String(), "--case-parallel", strconv.Itoa(r.casesAtOnce())}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--suites", r.specs.suites)
	add("--fixtures", r.specs.fixtures)
	add("--suite", r.filter.suites)
	add("--focus", r.focus)
	add("--label-filter", r.labels)
	add("--driver-profile", r.profile)
	add("--k8s-version", r.prov.local.Version)
	add("--cache-dir", r.prov.local.CacheDir)
	add("--bin-dir", r.prov.local.BinDir)
	add("--bin", r.prov.bins)
	if r.prov.local.HasBinaries() {
		add("--bin-encoding", r.prov.local.BinEncoding)
	}
	if r.verbose {
		args = append(args, "--verbose")
	}
	if r.prov.local.NodeBuilt {
		args = append(args, "--node-built")
	}
	if len(sh.ids) > 0 {
		args = append(args, "--case-ids", strings.Join(sh.ids, ","), "--part", fmt.Sprintf("%dof%d", sh.part, sh.parts))
	}
	return args
}

// shardResult is what came back from one shard process.
type shardResult struct {
	shard
	out     runner.Shard
	err     error
	log     string
	seconds float64
}

// runShards runs every cell of the plan in a process of its own, n at a
// time, then merges what they wrote into the run's reports, golden check
// and verdicts. It returns the exit code.
func runShards(ctx context.Context, r runRequest, opts runner.Options, providerNames []string, n int, s Streams) int {
	began := time.Now()
	selected, err := runner.Selection(opts.Focus, opts.LabelFilter)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 2
	}
	// The node's binaries build while the providers read their binaries'
	// gates for the plan: a second each, one after the other before.
	type nodeBuild struct {
		built bool
		code  int
	}
	nodes := make(chan nodeBuild, 1)
	go func() {
		built, code := ensureNodeBinaries(ctx, opts, s)
		nodes <- nodeBuild{built, code}
	}()
	recordBinaryFacts(ctx, opts, s)
	shards := planShards(opts.Plan, opts.Targets, providerNames, cellSupport(ctx, opts), selected, opts.CaseParallel)
	nb := <-nodes
	if len(shards) == 0 {
		fmt.Fprintln(s.Err, "draconform: no case matches --focus and --label-filter")
		return 1
	}
	dir := filepath.Join(opts.OutDir, "shards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 1
	}
	if nb.code != 0 {
		return nb.code
	}
	// The cells' nodes run what was just built: a cell that rebuilt it
	// would rewrite the image archives another cell is importing.
	r.prov.local.NodeBuilt = nb.built
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform: finding draconform's own binary:", err)
		return 1
	}
	n = min(n, len(shards))
	cellCount := map[string]bool{}
	for _, sh := range shards {
		cellCount[sh.key()] = true
	}
	fmt.Fprintf(s.Out, "draconform: %d cells in %d processes, each on a cluster of its own (long cells split into parts), %d at a time (--parallel); their logs: %s\n", len(cellCount), len(shards), n, dir)
	results := make([]shardResult, len(shards))
	// n workers take the shards in the planned order, costliest first; a
	// goroutine per shard racing for a slot would start them in any order.
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range shards {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	env := shardEnv(os.Environ(), runtime.NumCPU(), n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res := runShard(ctx, self, r, shards[i], opts, dir, env)
				results[i] = res
				mu.Lock()
				done++
				fmt.Fprintf(s.Out, "[%2d/%d] %s\n", done, len(shards), res.summary())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i := range results {
		if results[i].target == "" {
			results[i] = shardResult{shard: shards[i], err: fmt.Errorf("not run: %w", context.Cause(ctx))}
		}
	}

	var parts []runner.Shard
	var cells []runner.CellFacts
	var timings []runner.CellTiming
	var header strings.Builder
	var failed []string
	// In the order the cells are listed, not the order they finished; a
	// cell's parts in order, its facts and header from the first.
	byKey := map[string][]shardResult{}
	for _, res := range results {
		byKey[res.key()] = append(byKey[res.key()], res)
	}
	for i, t := range opts.Targets {
		for _, cell := range plan.Cells(opts.Plan) {
			list := byKey[t.Name+"/"+cell.Name]
			sort.Slice(list, func(a, b int) bool { return list[a].part < list[b].part })
			first := true
			for _, res := range list {
				if res.err != nil {
					failed = append(failed, fmt.Sprintf("%s (provider %s): %v", res.name(), providerNames[i], res.err))
					continue
				}
				parts = append(parts, res.out)
				for _, tm := range res.out.Timings {
					if res.parts > 1 {
						tm.Part = res.part
					}
					timings = append(timings, tm)
				}
				if first {
					cells = append(cells, res.out.Cells...)
					header.WriteString(res.out.Header)
					first = false
				}
			}
		}
	}
	merged := runner.MergeReports(parts, began)
	if err := writeTimings(filepath.Join(opts.OutDir, runner.TimingsFile), began, n, timings); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
	}
	errs := runner.Finish(opts, merged, cells, header.String())
	code := 0
	if !merged.SuiteSucceeded || len(errs) > 0 || len(failed) > 0 {
		code = 1
	}
	for _, f := range failed {
		fmt.Fprintf(s.Err, "draconform: cell %s\n", f)
	}
	for _, err := range errs {
		fmt.Fprintln(s.Err, "draconform:", err)
	}
	fmt.Fprintf(s.Out, "draconform: %s in %.1fs (%d processes for %d cells, %d at a time)\n", tally(merged), time.Since(began).Seconds(), len(shards), len(byKey), n)
	return code
}

// runShard runs one shard process and reads what it wrote.
func runShard(ctx context.Context, self string, r runRequest, sh shard, opts runner.Options, dir string, env []string) shardResult {
	res := shardResult{shard: sh, log: filepath.Join(dir, sh.slug()+".log")}
	began := time.Now()
	defer func() { res.seconds = time.Since(began).Seconds() }()
	out := filepath.Join(dir, sh.slug()+".json")
	_ = os.Remove(out)
	logFile, err := os.Create(res.log)
	if err != nil {
		res.err = err
		return res
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, self, r.shardArgs(sh, opts.OutDir, out, opts.RunID)...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Interrupted, the shard stops its cluster and cleans up as on Ctrl-C;
	// only if it hangs is it killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute
	runErr := cmd.Run()
	res.seconds = time.Since(began).Seconds()
	res.out, err = runner.ReadShard(out)
	if err != nil {
		// A shard whose cases failed still writes its report; one that
		// wrote none died before or while reporting.
		res.err = fmt.Errorf("wrote no report (%v; exit: %v); the end of its log, %s:\n%s", err, runErr, res.log, logTail(res.log, 15))
	}
	return res
}

func (res shardResult) summary() string {
	if res.err != nil {
		return fmt.Sprintf("%s FAILED after %.1fs: %v", res.name(), res.seconds, res.err)
	}
	line := fmt.Sprintf("%s: %s in %.1fs", res.name(), tally(res.out.Report), res.seconds)
	for _, tm := range res.out.Timings {
		line += fmt.Sprintf(" (cluster up in %.1fs)", tm.StartSeconds)
	}
	for _, sp := range res.out.Report.SpecReports {
		if sp.LeafNodeType == types.NodeTypeIt && sp.State.Is(types.SpecStateFailureStates) {
			line += "\n        failed: " + sp.LeafNodeText
		}
	}
	return line
}

// tally counts a report's cases by state, as a line.
func tally(r types.Report) string {
	var passed, failed, skipped int
	for _, sp := range r.SpecReports {
		if sp.LeafNodeType != types.NodeTypeIt {
			continue
		}
		switch {
		case sp.State.Is(types.SpecStatePassed):
			passed++
		case sp.State.Is(types.SpecStateSkipped | types.SpecStatePending):
			skipped++
		default:
			failed++
		}
	}
	return fmt.Sprintf("%d passed, %d failed, %d skipped", passed, failed, skipped)
}

// ensureNodeBinaries builds the node's container runtime before the shards
// start, so that they do not queue on its build lock one after another.
func ensureNodeBinaries(ctx context.Context, opts runner.Options, s Streams) (built bool, code int) {
	kubelet := false
	for _, c := range opts.Plan {
		kubelet = kubelet || c.Case.Requires.Kubelet()
	}
	if !kubelet {
		return false, 0
	}
	// Implementations differ in the control plane, not the node: one
	// build serves every target whose node runs the same binaries.
	byKey := map[string]localcp.NodeBinaries{}
	for _, t := range opts.Targets {
		np, ok := t.Provider.(nodeBuilder)
		if !ok {
			continue
		}
		key := np.NodeBuildKey()
		if bins, ok := byKey[key]; ok && key != "" {
			if err := np.AdoptNodeBinaries(bins); err != nil {
				fmt.Fprintln(s.Err, "draconform:", err)
				return false, 1
			}
			continue
		}
		bins, err := np.NodeBinaries(ctx)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return false, 1
		}
		byKey[key] = bins
		built = true
	}
	return built, 0
}

// recordBinaryFacts has every provider that can ask its binaries for their
// versions and gates once, for all the run's processes, do so, the
// providers at once. Failing only costs the cells the time to ask again.
func recordBinaryFacts(ctx context.Context, opts runner.Options, s Streams) {
	var wg sync.WaitGroup
	for _, t := range opts.Targets {
		fr, ok := t.Provider.(factsRecorder)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fr.RecordBinaryFacts(ctx); err != nil {
				fmt.Fprintf(s.Err, "draconform: %s: %v (each cell asks its binaries itself)\n", t.Name, err)
			}
		}()
	}
	wg.Wait()
}

// factsRecorder is a provider that records what its binaries say for the
// run's other processes.
type factsRecorder interface {
	RecordBinaryFacts(context.Context) error
}

// nodeBuilder is a provider whose nodes run binaries the run builds.
type nodeBuilder interface {
	NodeBinaries(context.Context) (localcp.NodeBinaries, error)
	NodeBuildKey() string
	AdoptNodeBinaries(localcp.NodeBinaries) error
}

// logTail is the last n lines of a file, for an error.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

func writeTimings(path string, began time.Time, n int, cells []runner.CellTiming) error {
	data, err := json.MarshalIndent(runner.RunTimings{Began: began, Seconds: time.Since(began).Seconds(), Parallel: n, Cells: cells}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// appendShardLogs appends the cells' own logs of a sharded run in outDir to
// w, each under a heading, in the order of their names.
func appendShardLogs(w io.Writer, outDir string) {
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
