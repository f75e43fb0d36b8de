package usecase

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

// CertifyRequest is a certification of one implementation: every suite,
// unfiltered, run on it, and a bundle written for one claim of the run.
type CertifyRequest struct {
	Run RunRequest
	// Product is the Product file; Claim the claim to certify; Bundle the
	// bundle's folder (default: <out>/bundle); SignKey an SSH key to sign
	// it with.
	Product, Claim, Bundle, SignKey string
	// Command is the command line as the bundle records it.
	Command string
	Version Version
	// Sonobuoy hands the run's reports and its bundle to Sonobuoy, as a
	// Sonobuoy plugin (sonobuoy-plugin --claim) does.
	Sonobuoy bool
}

// CertifyResult is the bundle written: its verdict and the command that
// checks it, or (Part) the part bundle of a share, which has no verdict.
type CertifyResult struct {
	Verdict   report.Verdict
	BundleDir string
	Check     string
	Part      bool
}

// Certify runs the request's suites, tees their output into the bundle's
// log, and writes the bundle of the run's verdict of the claim, where the
// run was whole.
func Certify(ctx context.Context, r CertifyRequest, s Streams) (CertifyResult, error) {
	b, code := r.Run.Specs.loadOr(s)
	if b == nil {
		return CertifyResult{}, said(1)
	}
	claim, err := findClaim(b, r.Claim)
	if err != nil {
		return CertifyResult{}, failed(2, err)
	}
	if strings.Contains(r.Run.Providers.Provider, ",") {
		return CertifyResult{}, failed(2, fmt.Errorf("a bundle certifies one implementation; --provider names %s", r.Run.Providers.Provider))
	}
	if r.Sonobuoy && r.Run.Shard != "" {
		return CertifyResult{}, failed(2, fmt.Errorf("--sonobuoy hands Sonobuoy one whole bundle; a share (--shard) writes a part of one"))
	}
	p, err := bundle.LoadProduct(r.Product, r.Run.Profile)
	if err != nil {
		return CertifyResult{}, failed(2, err)
	}
	runDir, unlock, code := certifyOutput(&r.Run, s)
	if code != 0 {
		return CertifyResult{}, said(code)
	}
	defer unlock()
	logPath := filepath.Join(runDir, "e2e.log")
	code, ok := runLogged(ctx, r.Run, logPath, fmt.Sprintf("draconform certify: %s\n  %s\n  certifying %s: %s\n", r.Version, r.Command, claim.Name, claim.Title), s)
	if !ok {
		return CertifyResult{}, said(1)
	}
	if code == 2 {
		// Refused before any case ran (the preflight, a usage error).
		return CertifyResult{}, said(2)
	}
	if r.Bundle == "" {
		r.Bundle = filepath.Join(runDir, "bundle")
	}
	if r.Run.Shard != "" {
		in := bundle.PartInputs{RunDir: runDir, Log: logPath, Product: *p, Claim: claim.Name, Command: r.Command, Version: r.Version}
		return CertifyResult{BundleDir: r.Bundle, Part: true}, said(certifyPart(ctx, r.Bundle, in, s))
	}
	res, err := r.writeBundle(ctx, runDir, logPath, *p, claim.Name)
	if r.Sonobuoy {
		// The run's reports go to Sonobuoy whether or not it earned a
		// bundle: the JUnit report shows what ran.
		bundleDir := ""
		if err == nil {
			bundleDir = res.BundleDir
		}
		if !publishSonobuoy(runDir, bundleDir, s) && err == nil {
			return CertifyResult{}, said(1)
		}
	}
	return res, err
}

// writeBundle writes the bundle of the whole run in runDir: its verdict
// of the claim, judged as verify-bundle judges it.
func (r CertifyRequest) writeBundle(ctx context.Context, runDir, logPath string, p spec.Product, claim string) (CertifyResult, error) {
	verdict, err := certifiedVerdict(ctx, runDir, claim)
	if err != nil {
		return CertifyResult{}, failed(1, fmt.Errorf("%w; no bundle is written", err))
	}
	p.KubernetesVersion = serverVersion(runDir)
	check, err := bundle.WriteSigned(r.Bundle, bundle.Inputs{RunDir: runDir, Log: logPath, Product: p, Command: r.Command, Version: r.Version, Verdict: verdict}, r.SignKey)
	if err != nil {
		return CertifyResult{}, failed(1, err)
	}
	return CertifyResult{Verdict: verdict, BundleDir: r.Bundle, Check: check}, nil
}

// certifyPart writes the part bundle of a share (certify --shard) that
// ran whole: its verdict is the merge's, of every share.
func certifyPart(ctx context.Context, dir string, in bundle.PartInputs, s Streams) int {
	rec, err := shards.ReadRecord(in.RunDir)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("the share was interrupted (%v)", context.Cause(ctx))
	}
	if err == nil {
		err = shareProblems(in.RunDir, rec)
	}
	if err != nil {
		fmt.Fprintf(s.Err, "draconform certify: %v; no part bundle is written\n", err)
		return 1
	}
	in.Product.KubernetesVersion = serverVersion(in.RunDir)
	if err := bundle.WritePart(dir, in); err != nil {
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return 1
	}
	fmt.Fprintf(s.Out, "\nshard %s of the plan of %s: part bundle %s\nno verdict yet: when every share has its part, join them into one bundle with\n  draconform merge --out DIR --bundle BUNDLE_DIR PART_DIR...\n", rec.Share, in.Claim, dir)
	return 0
}

// shareProblems says why a share's run cannot stand for its part of the
// plan: a process that wrote nothing, a setup or teardown that failed.
func shareProblems(runDir string, rec shards.Record) error {
	var problems []string
	for _, p := range rec.Processes {
		if p.Err != "" {
			problems = append(problems, fmt.Sprintf("%s: %s", p.Shard.Name(), p.Err))
		}
	}
	problems = append(problems, report.RunProblems(runDir)...)
	if len(problems) > 0 {
		return fmt.Errorf("the share did not finish cleanly: %s", strings.Join(problems, "; "))
	}
	return nil
}

// certifyOutput is certify's output folder (default _output/certify-<run
// id>), locked and empty; r.Out becomes it. A non-zero code says why not.
func certifyOutput(r *RunRequest, s Streams) (runDir string, unlock func(), code int) {
	if r.Out == "" {
		r.Out = filepath.Join("_output", "certify-"+runner.NewRunID())
	}
	runDir, err := outputDir(r.Out, "")
	if err != nil {
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return "", nil, 1
	}
	// The lock before anything is written: a second certify on the
	// same --out must not cut the first one's log short.
	if unlock, err = runner.LockOutput(runDir); err != nil {
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return "", nil, 2
	}
	r.outLocked = true
	if err := freshOutput(runDir); err != nil {
		unlock()
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return "", nil, 2
	}
	r.Out = runDir
	return runDir, unlock, 0
}

// runLogged runs r with its output in the log at logPath too, header
// first; ok is false where the log could not be made.
func runLogged(ctx context.Context, r RunRequest, logPath, header string, s Streams) (code int, ok bool) {
	logFile, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return 1, false
	}
	tee := Streams{Out: io.MultiWriter(s.Out, logFile), Err: io.MultiWriter(s.Err, logFile)}
	// The bundle's log is the run's whole output, as a reviewer reads it:
	// what each cell ran on, the matrix and every list, not the summary
	// that fits a screen.
	r.WholeSummary = true
	// What the log holds is text, with no terminal's colours.
	r.Colour = false
	fmt.Fprint(tee.Out, header)
	_, code = runSuites(ctx, r, tee)
	// A run split by cell wrote each cell's full output apart; the
	// bundle's log holds them all, as a reviewer reads it.
	shards.AppendLogs(logFile, r.Out)
	logFile.Close()
	return code, true
}

// freshOutput refuses an output folder that holds anything but its lock: a
// bundle speaks for one run, and an earlier run's verdicts, outcomes or
// cell reports left in the folder could stand in for this one's where it
// wrote none (a run that failed to start, a cell that left no report).
func freshOutput(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != runner.OutputLockFile {
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3], "...")
		}
		return fmt.Errorf("--out %s holds an earlier run's output (%s): certify writes into a new folder, so that its bundle holds nothing of another run; give another --out, or remove this one", dir, strings.Join(names, ", "))
	}
	return nil
}

// findClaim is the claim --claim names: certify has no default, so that a
// vendor cannot pick, after the run, whichever claim happened to stand.
func findClaim(b *loader.Bundle, name string) (*spec.Claim, error) {
	var names []string
	for _, c := range b.Claims {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	if name == "" {
		return nil, fmt.Errorf("--claim NAME is required: the claim the bundle certifies, one of %s", strings.Join(names, ", "))
	}
	msg := fmt.Sprintf("--claim %s is not a claim", name)
	if hint := loader.DidYouMean(name, names); hint != "" {
		msg += " (" + hint + ")"
	}
	return nil, fmt.Errorf("%s; suites/claims.yaml has %s", msg, strings.Join(names, ", "))
}
