package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// VendorOptions are the vendor's path: Self (this draconform) starts a
// cluster with `up --node` and certifies Claim on it through the
// kubeconfig provider; then Tests e2e-framework tests' overhead is
// measured on the same cluster.
type VendorOptions struct {
	Self, Dir       string
	Provider, Cell  string
	Claim           string
	Tests           int
	Log             io.Writer
	UpWithin        time.Duration
	CertifyExtraArg []string
}

// Certified is what a certify run took, read from its output.
type Certified struct {
	Seconds  float64
	ExitCode int
	Cases    int
	// CaseSeconds is the cases' mean wall time; Span from the first case's
	// start to the last one's end.
	CaseSeconds, Span float64
	// Overhead is the cases' mean namespace and clean-up time.
	Namespace, Cleanup float64
}

// benchProduct is what the bench certifies: draconform's test driver,
// which up --node runs on its node.
var benchProduct = `apiVersion: draconform.dev/v1alpha1
kind: Product
vendor: draconform (make bench)
name: draconform test driver
version: bench
driver: ` + probe.TestDriverName + `
image: draconform.dev/testdriver:bench
contact: https://github.com/draconform/draconform/issues
`

// MeasureVendor runs the vendor's path and the e2e framework's overhead on
// the same cluster, and stops the cluster.
func MeasureVendor(ctx context.Context, o VendorOptions) (vendor, overhead *SpeedRatio, err error) {
	kubeconfig, stop, err := upCluster(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	certDir := filepath.Join(o.Dir, "certify")
	product := filepath.Join(o.Dir, "product.yaml")
	if err := os.WriteFile(product, []byte(benchProduct), 0o644); err != nil {
		return nil, nil, err
	}
	args := append([]string{"certify", "--claim", o.Claim, "--provider", "kubeconfig", "--kubeconfig", kubeconfig, "--as-cell", o.Cell,
		"--allow-fake-nodes", "--allow-unconfined", "--product", product, "--out", certDir, "--bundle", filepath.Join(o.Dir, "bundle")}, o.CertifyExtraArg...)
	c, err := certify(ctx, o.Self, filepath.Join(o.Dir, "certify.log"), args)
	if err != nil {
		return nil, nil, err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "bench: certify --claim %s on the running cluster: verdict in %.1fs (exit %d), %d cases\n", o.Claim, c.Seconds, c.ExitCode, c.Cases)
	}
	peer, err := MeasureE2EOverhead(ctx, kubeconfig, o.Tests, peerInterval)
	if err != nil {
		return nil, nil, err
	}
	slow, err := MeasureE2EOverhead(ctx, kubeconfig, 1, 0)
	if err != nil {
		return nil, nil, err
	}
	vendor, overhead = VendorRatios(c, peer, slow)
	return vendor, overhead, nil
}

// VendorRatios are the time to a verdict per case against the e2e
// framework's per-test overhead, and the cases' own overhead against the
// same; slow is the framework with its default polling, for the note.
func VendorRatios(c Certified, peer, slow []E2ETest) (vendor, overhead *SpeedRatio) {
	n := float64(max(c.Cases, 1))
	note := fmt.Sprintf("the e2e framework's per test: envfuncs.CreateNamespace, wait.For the default ServiceAccount (polled every %s, at once first), envfuncs.DeleteNamespace; with its default polling (5 s, not at once) one test took %s", peerInterval, secs(meanOverhead(slow)))
	vendor = &SpeedRatio{Note: fmt.Sprintf("`certify` to its verdict on a running cluster (exit %d, %d cases), per case, against ", c.ExitCode, c.Cases) + note}
	overhead = &SpeedRatio{Note: "a certify case's namespace (made, its default ServiceAccount waited for) and clean-up against " + note}
	for _, t := range peer {
		vendor.Samples = append(vendor.Samples, Pair{Num: c.Seconds / n, Den: t.Seconds()})
		overhead.Samples = append(overhead.Samples, Pair{Num: c.Namespace + c.Cleanup, Den: t.Seconds()})
	}
	outside := max(c.Seconds-c.Span, 0) / n
	inCases := c.Seconds/n - outside
	vendor.Parts = []Part{{"in the cases (they run side by side)", inCases}, {"outside the cases: probe, plan, verdict, bundle", outside}}
	overhead.Parts = []Part{{"namespace", c.Namespace}, {"clean-up", c.Cleanup}}
	floor := []Part{{"create the namespace", medianOf(peer, func(t E2ETest) float64 { return t.Create })},
		{"wait for its default ServiceAccount", medianOf(peer, func(t E2ETest) float64 { return t.WaitSA })},
		{"delete it", medianOf(peer, func(t E2ETest) float64 { return t.Delete })}}
	vendor.Floor, overhead.Floor = floor, floor
	return vendor, overhead
}

func medianOf(ts []E2ETest, f func(E2ETest) float64) float64 {
	var xs []float64
	for _, t := range ts {
		xs = append(xs, f(t))
	}
	return Median(xs)
}

func meanOverhead(ts []E2ETest) float64 {
	var s float64
	for _, t := range ts {
		s += t.Seconds()
	}
	return s / float64(max(len(ts), 1))
}

// upCluster starts `draconform up --node` and waits until it says the
// cluster is up; stop interrupts it as Ctrl-C would and waits.
func upCluster(ctx context.Context, o VendorOptions) (string, func(), error) {
	logPath := filepath.Join(o.Dir, "up.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	lines := NewLineTimes()
	cmd := exec.Command(o.Self, "up", "--cell", o.Cell, "--node", "--provider", o.Provider, "--out", filepath.Join(o.Dir, "up"))
	cmd.Stdout = io.MultiWriter(log, lines)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		log.Close()
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(2 * time.Minute):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	deadline := time.After(max(o.UpWithin, time.Minute))
	for {
		if kc := kubeconfigOf(lines); kc != "" {
			return kc, stop, nil
		}
		select {
		case <-exited:
			return "", nil, fmt.Errorf("draconform up ended before the cluster was up; log %s", logPath)
		case <-deadline:
			stop()
			return "", nil, fmt.Errorf("draconform up: no cluster within %s; log %s", max(o.UpWithin, time.Minute), logPath)
		case <-ctx.Done():
			stop()
			return "", nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// kubeconfigOf is the kubeconfig up printed once its cluster was up.
func kubeconfigOf(l *LineTimes) string {
	if _, up := l.First("is up; logs in"); !up {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.Lines {
		if kc, ok := strings.CutPrefix(ln.Text, "  export KUBECONFIG="); ok {
			return strings.TrimSpace(kc)
		}
	}
	return ""
}

// certify runs certify to its verdict and reads its cases.
func certify(ctx context.Context, self, logPath string, args []string) (Certified, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return Certified{}, err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stdout, cmd.Stderr = log, log
	began := time.Now()
	runErr := cmd.Run()
	c := Certified{Seconds: time.Since(began).Seconds(), ExitCode: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		return c, ctx.Err()
	}
	var out string
	for i, a := range args {
		if a == "--out" && i+1 < len(args) {
			out = args[i+1]
		}
	}
	var reports []types.Report
	if err := readJSON(filepath.Join(out, report.JSONFile), &reports); err != nil {
		return c, fmt.Errorf("certify (exit %v, log %s): %w", runErr, logPath, err)
	}
	return CertifiedOf(c, reports), nil
}

// CertifiedOf adds what the reports' cases took to c.
func CertifiedOf(c Certified, reports []types.Report) Certified {
	var first, last time.Time
	var walls float64
	for _, rep := range reports {
		for _, sp := range rep.SpecReports {
			if sp.LeafNodeType != types.NodeTypeIt || !sp.State.Is(types.SpecStatePassed|types.SpecStateFailureStates) {
				continue
			}
			c.Cases++
			secs := report.CaseSeconds(sp)
			walls += secs
			began := sp.StartTime
			for _, e := range sp.ReportEntries {
				if e.Name == report.EntryBegan {
					began, _ = time.Parse(time.RFC3339Nano, e.StringRepresentation())
				}
			}
			end := began.Add(time.Duration(secs * float64(time.Second)))
			if first.IsZero() || began.Before(first) {
				first = began
			}
			if end.After(last) {
				last = end
			}
			if ph, ok := phasesOf(sp); ok {
				c.Namespace += ph.Seconds[runner.PhaseNamespace]
				c.Cleanup += ph.Seconds[runner.PhaseCleanup]
			}
		}
	}
	if c.Cases > 0 {
		n := float64(c.Cases)
		c.CaseSeconds, c.Namespace, c.Cleanup = walls/n, c.Namespace/n, c.Cleanup/n
		c.Span = last.Sub(first).Seconds()
	}
	return c
}
