package cli

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

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/build/k8sbuild"
	"github.com/draconform/draconform/tools/quality/bench"
	"github.com/draconform/draconform/tools/runner"
)

// benchCmd measures draconform's own speed: the whole matrix N times with
// the binaries built, or a newcomer's cold first run, and writes the figures
// as Markdown and JSON, beside the previous ones.
func benchCmd(fs *pflag.FlagSet) action {
	runs := fs.Int("runs", 5, "how many runs of the matrix (warm)")
	golden := fs.String("golden", "docs/golden-outcomes.json", "golden outcomes each run is compared with (a run that differs is marked, its figures kept)")
	mdPath := fs.String("md", "docs/bench.md", "Markdown to write")
	dataPath := fs.String("data", "docs/bench.json", "figures to write, and read for the comparison")
	out := fs.String("out", "", "directory for each run's output (default: _output/bench-<id>)")
	cold := fs.Bool("cold", false, "measure a newcomer's first `make conformance` instead: a clean clone of the committed HEAD with empty Go module, Go build and binary caches, with the CPU use over time")
	startPairs := fs.Int("start-pairs", 3, "cell starts measured against a bare kube-apiserver and etcd, in turns, for the start ratio (0: none)")
	vendorTests := fs.Int("vendor-tests", 5, "e2e-framework tests' overhead measured after certify on a running cluster, for the vendor ratio (0: no vendor path)")
	vendorProvider := fs.String("vendor-provider", "prototype", "the embedded provider `up --node` runs for the vendor ratio")
	vendorCell := fs.String("vendor-cell", "capacity-on", "the cell `up --node` starts and certify claims for the vendor ratio")
	vendorClaim := fs.String("vendor-claim", "kep6406-gates-on", "the claim certify checks for the vendor ratio")
	warmRecord := fs.Bool("warm-record", true, "record the warm runs' figures (false: only the ratios, the case ratio among them, e.g. from a matrix narrowed by arguments after --)")
	var cost costFlags
	cost.register(fs)
	return func(ctx context.Context, args []string, s Streams) int {
		prev, err := bench.Load(*dataPath)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform bench:", err)
			return 1
		}
		dir, err := outputDir(*out, "bench-"+runner.NewRunID())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform bench:", err)
			return 1
		}
		if cost.on {
			sc, err := cost.measure(ctx, dir, s)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform bench: scheduler cost:", err)
				return 1
			}
			return writeBench(prev.WithSchedCost(machine(), sc), *mdPath, *dataPath, s)
		}
		var w *bench.Warm
		var c *bench.Cold
		var rat *bench.Ratios
		code := 0
		if *cold {
			c, code = coldBench(ctx, dir, s)
		} else {
			load := bench.LoadAverage()
			if *runs > 0 {
				w, code = warmBench(ctx, dir, *runs, *golden, args, s)
			}
			rat = ratiosBench(ctx, dir, w, ratioCounts{*startPairs, *vendorTests, *vendorProvider, *vendorCell, *vendorClaim, load}, &cost, s)
		}
		if w == nil && c == nil && rat == nil {
			return max(code, 1)
		}
		res := prev
		if !*warmRecord {
			w = nil
		}
		if w != nil || c != nil {
			res = res.With(machine(), w, c)
		}
		if rat != nil {
			res = res.WithRatios(machine(), rat)
		}
		if wrote := writeBench(res, *mdPath, *dataPath, s); wrote != 0 {
			return wrote
		}
		return code
	}
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
	step := 20 * time.Second
	c := &bench.Cold{Date: time.Now().UTC().Format("2006-01-02"), Commit: commitOf(clone), Command: command, Seconds: secs,
		Golden: runErr == nil, CPU: bench.Downsample(samples, step), CPUStep: step.Seconds()}
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
