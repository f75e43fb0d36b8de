package app

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
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/localcp"
	"github.com/draconform/draconform/tools/k8sbuild"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/runner"
)

// shard is one cell of one implementation, run by a process of its own.
type shard struct {
	provider, target, cell string
	weight                 int
}

func (sh shard) key() string  { return sh.target + "/" + sh.cell }
func (sh shard) slug() string { return sh.target + "-" + sh.cell }

// autoParallel is how many cells run at once when --parallel is not given:
// two per core, since a cell's processes mostly wait (on each other, on
// etcd's fsync, on the kubelet); and no more than memory allows at about
// 1.5 GiB per cell with its node.
func autoParallel() int {
	n := 2 * runtime.NumCPU()
	if mem := k8sbuild.MemTotal(); mem > 0 {
		n = min(n, max(1, int(mem/(1536<<20))))
	}
	return max(n, 1)
}

// separable says whether every target may run its cells in processes of
// their own.
func separable(targets []runner.Target) bool {
	for _, t := range targets {
		if _, ok := t.Provider.(cluster.SeparateCells); !ok {
			return false
		}
	}
	return len(targets) > 0
}

// planShards lists the shards of a run, the longest first, so that the
// cells with restarts and nodes do not start last and set the wall time.
func planShards(cases []plan.Case, targets []runner.Target, providerNames []string) []shard {
	var out []shard
	for i, t := range targets {
		for _, cell := range plan.Cells(cases) {
			sh := shard{provider: providerNames[i], target: t.Name, cell: cell.Name}
			node := false
			for _, c := range cases {
				if c.Cell.Name != cell.Name || (c.Target != "" && c.Target != t.Name) {
					continue
				}
				// Rough costs in seconds, measured: a case 1, a restart 5,
				// a kubelet node 10.
				sh.weight++
				if c.Serial {
					sh.weight += 5
				}
				node = node || c.Case.Requires.Kubelet()
			}
			if sh.weight == 0 {
				continue
			}
			if node {
				sh.weight += 10
			}
			out = append(out, sh)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	return out
}

// shardArgs are the command line of one shard: the run's own selection and
// options, narrowed to one implementation and one cell.
func (r runRequest) shardArgs(sh shard, outDir, shardOut, runID string) []string {
	args := []string{"run", "--provider", sh.provider, "--cells", sh.cell, "--out", outDir,
		"--shard-out", shardOut, "--run-id", runID, "--parallel", "1",
		"--case-timeout", r.caseTimeout.String()}
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
	shards := planShards(opts.Plan, opts.Targets, providerNames)
	dir := filepath.Join(opts.OutDir, "shards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return 1
	}
	if code := ensureNodeBinaries(ctx, opts, s); code != 0 {
		return code
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform: finding draconform's own binary:", err)
		return 1
	}
	n = min(n, len(shards))
	fmt.Fprintf(s.Out, "draconform: %d cells, each in a process of its own, %d at a time (--parallel); their logs: %s\n", len(shards), n, dir)
	results := make([]shardResult, len(shards))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = shardResult{shard: sh, err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			res := runShard(ctx, self, r, sh, opts, dir)
			results[i] = res
			mu.Lock()
			done++
			fmt.Fprintf(s.Out, "[%2d/%d] %s\n", done, len(shards), res.summary())
			mu.Unlock()
		}()
	}
	wg.Wait()

	var parts []runner.Shard
	var cells []runner.CellFacts
	var timings []runner.CellTiming
	var header strings.Builder
	var failed []string
	// In the order the cells are listed, not the order they finished.
	byKey := map[string]shardResult{}
	for _, res := range results {
		byKey[res.key()] = res
	}
	for i, t := range opts.Targets {
		for _, cell := range plan.Cells(opts.Plan) {
			res, ok := byKey[t.Name+"/"+cell.Name]
			if !ok {
				continue
			}
			if res.err != nil {
				failed = append(failed, fmt.Sprintf("%s (provider %s): %v", res.key(), providerNames[i], res.err))
				continue
			}
			parts = append(parts, res.out)
			cells = append(cells, res.out.Cells...)
			timings = append(timings, res.out.Timings...)
			header.WriteString(res.out.Header)
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
	fmt.Fprintf(s.Out, "draconform: %s in %.1fs (%d cells, %d at a time)\n", tally(merged), time.Since(began).Seconds(), len(shards), n)
	return code
}

// runShard runs one shard process and reads what it wrote.
func runShard(ctx context.Context, self string, r runRequest, sh shard, opts runner.Options, dir string) shardResult {
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
		return fmt.Sprintf("%s FAILED after %.1fs: %v", res.key(), res.seconds, res.err)
	}
	line := fmt.Sprintf("%s: %s in %.1fs", res.key(), tally(res.out.Report), res.seconds)
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
func ensureNodeBinaries(ctx context.Context, opts runner.Options, s Streams) int {
	kubelet := false
	for _, c := range opts.Plan {
		kubelet = kubelet || c.Case.Requires.Kubelet()
	}
	if !kubelet {
		return 0
	}
	for _, t := range opts.Targets {
		np, ok := t.Provider.(interface {
			NodeBinaries(context.Context) (localcp.NodeBinaries, error)
		})
		if !ok {
			continue
		}
		if _, err := np.NodeBinaries(ctx); err != nil {
			fmt.Fprintln(s.Err, "draconform:", err)
			return 1
		}
	}
	return 0
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
