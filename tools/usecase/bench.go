package usecase

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/quality/bench"
	"github.com/draconform/draconform/tools/runner"
)

// BenchRequest measures draconform's own speed: the whole matrix Runs
// times with the binaries built (Args go to each run), or (Cold) a
// newcomer's cold first run, or the scheduler's cost, and writes the
// figures as Markdown (MD) and JSON (Data), beside the previous ones.
type BenchRequest struct {
	Runs                    int
	Golden, MD, Data, Out   string
	Cold                    bool
	StartPairs, VendorTests int
	VendorProvider          string
	VendorCell, VendorClaim string
	WarmRecord              bool
	Cost                    SchedulerCost
	Args                    []string
}

// Bench measures what the request asks; its progress goes to s.
func Bench(ctx context.Context, r BenchRequest, s Streams) error {
	prev, err := bench.Load(r.Data)
	if err != nil {
		return err
	}
	dir, err := outputDir(r.Out, "bench-"+runner.NewRunID())
	if err != nil {
		return err
	}
	if r.Cost.On {
		sc, err := r.Cost.measure(ctx, dir, s)
		if err != nil {
			return fmt.Errorf("scheduler cost: %w", err)
		}
		return said(writeBench(prev.WithSchedCost(machine(), sc), r.MD, r.Data, s))
	}
	var w *bench.Warm
	var c *bench.Cold
	var rat *bench.Ratios
	code := 0
	if r.Cold {
		c, code = coldBench(ctx, dir, s)
	} else {
		load := bench.LoadAverage()
		if r.Runs > 0 {
			w, code = warmBench(ctx, dir, r.Runs, r.Golden, r.Args, s)
		}
		rat = ratiosBench(ctx, dir, w, ratioCounts{r.StartPairs, r.VendorTests, r.VendorProvider, r.VendorCell, r.VendorClaim, load}, &r.Cost, s)
	}
	if w == nil && c == nil && rat == nil {
		return said(max(code, 1))
	}
	res := prev
	if !r.WarmRecord {
		w = nil
	}
	if w != nil || c != nil {
		res = res.With(machine(), w, c)
	}
	if rat != nil {
		res = res.WithRatios(machine(), rat)
	}
	if wrote := writeBench(res, r.MD, r.Data, s); wrote != 0 {
		return said(wrote)
	}
	return said(code)
}

// writeBench saves the figures as JSON and renders them as Markdown.
func writeBench(res bench.Results, mdPath, dataPath string, s Streams) int {
	if err := res.Save(dataPath); err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return 1
	}
	if err := os.WriteFile(mdPath, []byte(bench.Markdown(res)), 0o644); err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return 1
	}
	fmt.Fprintf(s.Out, "bench: figures in %s and %s\n", mdPath, dataPath)
	return 0
}

// warmBench runs the matrix runs times, one after another, each sampled.
func warmBench(ctx context.Context, dir string, runs int, golden string, extra []string, s Streams) (*bench.Warm, int) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return nil, 1
	}
	args := append([]string{"--golden", golden}, extra...)
	w := &bench.Warm{Date: time.Now().UTC().Format("2006-01-02"), Commit: commit(), Args: args}
	code := 0
	for i := 1; i <= runs; i++ {
		runDir := filepath.Join(dir, fmt.Sprintf("run-%02d", i))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			fmt.Fprintln(s.Err, "draconform bench:", err)
			return nil, 1
		}
		logPath := filepath.Join(runDir, "run.log")
		log, err := os.Create(logPath)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform bench:", err)
			return nil, 1
		}
		cmd := exec.CommandContext(ctx, self, append([]string{"run", "--out", runDir}, args...)...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 2 * time.Minute
		began := time.Now()
		if err := cmd.Start(); err != nil {
			log.Close()
			fmt.Fprintln(s.Err, "draconform bench:", err)
			return nil, 1
		}
		var sm bench.Sampler
		sm.Start(cmd.Process.Pid)
		runErr := cmd.Wait()
		wall := time.Since(began)
		samples := sm.Stop()
		log.Close()
		if ctx.Err() != nil {
			fmt.Fprintln(s.Err, "draconform bench: interrupted")
			return nil, 1
		}
		r, err := bench.ReadRun(runDir, began, wall, samples)
		if err != nil {
			fmt.Fprintf(s.Err, "draconform bench: run %d (log %s): %v\n", i, logPath, err)
			return nil, 1
		}
		r.Programs = sm.Programs()
		r.Golden = runErr == nil
		if !r.Golden {
			code = 1
			fmt.Fprintf(s.Err, "draconform bench: run %d failed or differs from the golden table (%v): see %s\n", i, runErr, logPath)
		}
		fmt.Fprintf(s.Out, "bench: run %d of %d: %.1fs wall, first case at %.1fs, %d cases, peak %.0f MiB, golden %v\n", i, runs, r.WallSeconds, r.FirstCaseSeconds, r.Cases, float64(r.PeakRSS)/(1<<20), r.Golden)
		w.Runs = append(w.Runs, r)
	}
	return w, code
}

// coldBench clones the committed HEAD and runs `make conformance` there
// with every cache empty, sampling the CPU.
func coldBench(ctx context.Context, dir string, s Streams) (*bench.Cold, int) {
	root, _, err := k8sbuild.Dirs("", "")
	if err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return nil, 1
	}
	clone := filepath.Join(dir, "clone")
	caches := filepath.Join(dir, "go")
	fmt.Fprintf(s.Out, "bench: cold run of the committed HEAD in %s, Go caches in %s (the working tree's changes are not in it)\n", clone, caches)
	if out, err := exec.CommandContext(ctx, "git", "clone", "--quiet", "--no-hardlinks", root, clone).CombinedOutput(); err != nil {
		fmt.Fprintf(s.Err, "draconform bench: cloning %s: %v\n%s", root, err, out)
		return nil, 1
	}
	logPath := filepath.Join(dir, "cold.log")
	log, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return nil, 1
	}
	defer log.Close()
	lines := bench.NewLineTimes()
	command := "make conformance"
	cmd := exec.CommandContext(ctx, "make", "conformance")
	cmd.Dir = clone
	// -modcacherw: the module cache can be removed afterwards.
	cmd.Env = append(os.Environ(), "GOMODCACHE="+filepath.Join(caches, "mod"), "GOCACHE="+filepath.Join(caches, "build"), "GOFLAGS=-modcacherw")
	cmd.Stdout = io.MultiWriter(log, lines)
	cmd.Stderr = cmd.Stdout
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute
	began := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(s.Err, "draconform bench:", err)
		return nil, 1
	}
	sm := bench.Sampler{Interval: 2 * time.Second}
	sm.Start(cmd.Process.Pid)
	runErr := cmd.Wait()
	secs := time.Since(began).Seconds()
	samples := sm.Stop()
	if ctx.Err() != nil {
		fmt.Fprintln(s.Err, "draconform bench: interrupted")
		return nil, 1
	}
	c := coldResult(commitOf(clone), command, secs, runErr == nil, samples, lines)
	fmt.Fprintf(s.Out, "bench: cold first result in %.0fs (golden %v); log %s\n", secs, c.Golden, logPath)
	code := 0
	if !c.Golden {
		code = 1
		fmt.Fprintf(s.Err, "draconform bench: the cold run failed (%v): see %s\n", runErr, logPath)
	}
	// The caches are gigabytes, and a cold run needs them gone next time.
	if err := os.RemoveAll(caches); err != nil {
		fmt.Fprintf(s.Err, "draconform bench: removing %s: %v\n", caches, err)
	}
	return c, code
}

// coldResult is a cold run's figures: its time, its CPU and memory over
// time, and when each of its steps began.
func coldResult(commit, command string, secs float64, golden bool, samples []bench.Sample, lines *bench.LineTimes) *bench.Cold {
	step := 20 * time.Second
	c := &bench.Cold{Date: time.Now().UTC().Format("2006-01-02"), Commit: commit, Command: command, Seconds: secs,
		Golden: golden, CPU: bench.Downsample(samples, step), CPUStep: step.Seconds()}
	for _, sm := range samples {
		c.PeakRSS = max(c.PeakRSS, sm.RSS)
	}
	for _, m := range coldMilestones {
		if at, ok := lines.First(m.line); ok {
			c.Milestones = append(c.Milestones, bench.Milestone{What: m.what, Seconds: at.Seconds()})
		}
	}
	c.Milestones = append(c.Milestones, bench.Milestone{What: "the first result: the matrix's report and golden check", Seconds: secs})
	c.Milestones = bench.WithCPU(c.Milestones, samples)
	return c
}

// coldMilestones are the output lines that mark a cold run's steps.
var coldMilestones = []struct{ line, what string }{
	{"local: building Kubernetes", "draconform itself compiled; the Kubernetes builds begin"},
	{"local: built Kubernetes", "vanilla v1.37.2 binaries built"},
	{"local: built container runtime", "the node's containerd, runc and CNI plugins built"},
	{"prototype: binaries ready", "the prototype's kube-apiserver and kube-scheduler built"},
	{"draconform: run ", "the run begins"},
	{"[ 1/", "the first cell's result"},
}

func machine() string {
	return fmt.Sprintf("%d cores, %.0f GiB, %s/%s, %s", runtime.NumCPU(), float64(k8sbuild.MemTotal())/(1<<30), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func commit() string { return commitOf(".") }

func commitOf(dir string) string {
	out, err := exec.Command("git", "-C", dir, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
