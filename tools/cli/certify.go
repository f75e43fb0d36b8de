package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
	"github.com/draconform/draconform/tools/runner/shards"
)

// certifyCmd runs every suite, unfiltered, on one implementation and writes
// a certification bundle for one claim of the run.
func certifyCmd(fs *pflag.FlagSet) action {
	var r runRequest
	r.prov.register(fs)
	// A vendor certifies the cluster its kubeconfig reaches.
	oneProvider(fs, "kubeconfig", "the one implementation to certify: kubeconfig (the cluster of --kubeconfig), or an embedded one (local, prototype, a mutant)")
	product := fs.String("product", "", "the Product file (kind: Product): vendor, name, version, driver, image, contact; required")
	claimName := fs.String("claim", "", "the claim to certify (suites/claims.yaml: kep6406-gates-on, kep6406-gate-transitions, kep6406-partial-gates, feature-absent-safe); required: the bundle and the exit code speak for it alone")
	bundleDir := fs.String("bundle", "", "directory for the bundle (default: <out>/bundle)")
	signKey := fs.String("sign-key", "", "sign the bundle with this SSH key (ssh-keygen -Y sign, namespace "+bundle.SigNamespace+"; a private key, or the public key of one ssh-agent holds); unsigned, a bundle is self-attested")
	fs.StringVar(&r.out, "out", "", "directory for the run's reports and logs (default: _output/certify-<run id>)")
	fs.DurationVar(&r.caseTimeout, "case-timeout", 5*time.Minute, "bound on one case, cleanup included")
	fs.BoolVarP(&r.verbose, "verbose", "v", false, "print every step as it runs")
	fs.StringVar(&r.shard, "shard", "", "run share i of n of the plan, e.g. 2/3, on the embedded providers, and write a part bundle; draconform merge --bundle joins every share's part into one bundle")
	fs.StringVar(&r.profile, "driver-profile", "", "a DriverProfile file naming your DRA driver, its shareable devices and what one share takes (default: draconform's test driver)")
	refused := refuseFlags(fs, "certify runs every case of every suite, as shipped: a narrowed or edited run supports no claim",
		"focus", "label-filter", "suite", "cells", "suites", "fixtures", "golden", "update-golden")
	return func(ctx context.Context, _ []string, s Streams) int {
		if err := refused(); err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 2
		}
		if *product == "" {
			fmt.Fprintln(s.Err, "draconform certify: --product FILE is required (see README, Self-certify your driver)")
			return 2
		}
		b := r.specs.loadOrReport(s)
		if b == nil {
			return 1
		}
		claim, err := findClaim(b, *claimName)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 2
		}
		if strings.Contains(r.prov.provider, ",") {
			fmt.Fprintf(s.Err, "draconform certify: a bundle certifies one implementation; --provider names %s\n", r.prov.provider)
			return 2
		}
		p, err := bundle.LoadProduct(*product, r.profile)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 2
		}
		runDir, unlock, code := certifyOutput(&r, s)
		if code != 0 {
			return code
		}
		defer unlock()
		logPath := filepath.Join(runDir, "e2e.log")
		command, v := commandLine("certify", fs), buildVersion()
		code, ok := runLogged(ctx, r, logPath, fmt.Sprintf("draconform certify: %s\n  %s\n  certifying %s: %s\n", v, command, claim.Name, claim.Title), s)
		if !ok {
			return 1
		}
		if code == 2 {
			// Refused before any case ran (the preflight, a usage error).
			return 2
		}
		if *bundleDir == "" {
			*bundleDir = filepath.Join(runDir, "bundle")
		}
		if r.shard != "" {
			return certifyPart(ctx, *bundleDir, bundle.PartInputs{RunDir: runDir, Log: logPath, Product: *p, Claim: claim.Name, Command: command, Version: v}, s)
		}
		verdict, err := certifiedVerdict(ctx, runDir, claim.Name)
		if err != nil {
			fmt.Fprintf(s.Err, "draconform certify: %v; no bundle is written\n", err)
			return 1
		}
		p.KubernetesVersion = serverVersion(runDir)
		check, err := bundle.WriteSigned(*bundleDir, bundle.Inputs{RunDir: runDir, Log: logPath, Product: *p, Command: command, Version: v, Verdict: verdict}, *signKey)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 1
		}
		return printVerdict("certify", verdict, *bundleDir, check, s)
	}
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

// printVerdict says what the bundle in dir certifies and how to check it;
// the exit code is 0 for a conformant claim alone.
func printVerdict(cmd string, verdict report.Verdict, dir, check string, s Streams) int {
	fmt.Fprintf(s.Out, "\n%s %s on %s: %s\nbundle: %s (check it with: %s)\n",
		strings.ToUpper(string(verdict.State)), verdict.Claim, verdict.Target, verdict.Reason, dir, check)
	if verdict.State != report.Conformant {
		fmt.Fprintf(s.Err, "draconform %s: %s is %s: nothing is certified\n", cmd, verdict.Claim, verdict.State)
		return 1
	}
	return 0
}

// certifyOutput is certify's output folder (default _output/certify-<run
// id>), locked and empty; r.out becomes it. A non-zero code says why not.
func certifyOutput(r *runRequest, s Streams) (runDir string, unlock func(), code int) {
	if r.out == "" {
		r.out = filepath.Join("_output", "certify-"+runner.NewRunID())
	}
	runDir, err := outputDir(r.out, "")
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
	r.out = runDir
	return runDir, unlock, 0
}

// runLogged runs r with its output in the log at logPath too, header
// first; ok is false where the log could not be made.
func runLogged(ctx context.Context, r runRequest, logPath, header string, s Streams) (code int, ok bool) {
	logFile, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform certify:", err)
		return 1, false
	}
	tee := Streams{Out: io.MultiWriter(s.Out, logFile), Err: io.MultiWriter(s.Err, logFile)}
	// The bundle's log is the run's whole output, as a reviewer reads it:
	// what each cell ran on, the matrix and every list, not the summary
	// that fits a screen.
	r.wholeSummary = true
	fmt.Fprint(tee.Out, header)
	_, code = runSuites(ctx, r, tee)
	// A run split by cell wrote each cell's full output apart; the
	// bundle's log holds them all, as a reviewer reads it.
	shards.AppendLogs(logFile, r.out)
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

// certifiedVerdict is the run's verdict of claim, once the run is known to
// be whole: interrupted, or with a cell's process gone, or a setup or
// teardown that failed, it certifies nothing, whatever its verdicts say.
func certifiedVerdict(ctx context.Context, runDir, claim string) (report.Verdict, error) {
	if ctx.Err() != nil {
		return report.Verdict{}, fmt.Errorf("the run was interrupted (%v)", context.Cause(ctx))
	}
	if problems := report.RunProblems(runDir); len(problems) > 0 {
		return report.Verdict{}, fmt.Errorf("the run did not finish cleanly: %s", strings.Join(problems, "; "))
	}
	verdicts, err := readVerdicts(runDir)
	if err != nil {
		return report.Verdict{}, fmt.Errorf("the run left no verdicts: %w", err)
	}
	var found []report.Verdict
	for _, v := range verdicts {
		if v.Claim == claim {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		return report.Verdict{}, fmt.Errorf("the run gave %d verdicts of %s, not one", len(found), claim)
	}
	for _, b := range found[0].Blocking {
		if strings.Contains(b, report.NoOutcome) {
			return report.Verdict{}, fmt.Errorf("the run did not finish: %s", b)
		}
	}
	return found[0], nil
}

// refuseFlags registers flags a verb refuses, hidden, so that using one
// says why instead of "unknown flag".
func refuseFlags(fs *pflag.FlagSet, why string, names ...string) func() error {
	for _, n := range names {
		fs.String(n, "", why)
		_ = fs.MarkHidden(n)
	}
	return func() error {
		for _, n := range names {
			if fs.Changed(n) {
				return fmt.Errorf("--%s is refused: %s", n, why)
			}
		}
		return nil
	}
}

// commandLine spells the verb with the flags given, as a user would type it.
func commandLine(verb string, fs *pflag.FlagSet) string {
	parts := []string{"draconform", verb}
	fs.Visit(func(f *pflag.Flag) {
		parts = append(parts, "--"+f.Name+"="+shellQuote(f.Value.String()))
	})
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func readVerdicts(runDir string) ([]report.Verdict, error) {
	data, err := os.ReadFile(filepath.Join(runDir, report.VerdictsFile))
	if err != nil {
		return nil, err
	}
	var vs []report.Verdict
	return vs, json.Unmarshal(data, &vs)
}

// serverVersion is the version the first cell that started reported.
func serverVersion(runDir string) string {
	data, err := os.ReadFile(filepath.Join(runDir, report.FactsFile))
	if err != nil {
		return ""
	}
	var cells []runner.CellFacts
	if json.Unmarshal(data, &cells) != nil {
		return ""
	}
	for _, c := range cells {
		if c.Read != nil && c.Read.ServerVersion != "" {
			return c.Read.ServerVersion
		}
	}
	return ""
}

// verifyBundleCmd checks a bundle as a reviewer would.
func verifyBundleCmd(fs *pflag.FlagSet) action {
	allowed := fs.String("allowed-signers", "", "an OpenSSH allowed_signers file (\"PRINCIPAL KEY\" lines): require SHA256SUMS.sig, made by a key it lists (ssh-keygen -Y verify, namespace "+bundle.SigNamespace+")")
	return func(_ context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			fmt.Fprintln(s.Err, "usage: draconform verify-bundle [--allowed-signers FILE] DIR")
			return 2
		}
		b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
		if err != nil {
			fmt.Fprintln(s.Err, "draconform verify-bundle:", err)
			return 1
		}
		claims := plan.Claims(b, plan.Expand(b, plan.Filter{}))
		judge := func(name string, outcomes []report.Outcome, facts []byte) (report.Verdict, []string, error) {
			return judgeBundle(claims, name, outcomes, facts)
		}
		err = bundle.VerifyMerged(args[0], suiteDigest(), judge, checkShares(b, args[0]))
		var signer string
		if *allowed != "" {
			var serr error
			signer, serr = bundle.VerifySignature(args[0], *allowed)
			err = errors.Join(err, serr)
		}
		if err != nil {
			fmt.Fprintf(s.Err, "draconform verify-bundle: %s is not a valid bundle:\n", args[0])
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintln(s.Err, "  - "+line)
			}
			return 1
		}
		v, _ := readVerdicts(args[0])
		fmt.Fprintf(s.Out, "%s: a complete bundle; its sums match, its JUnit report agrees with its outcomes, every case of its claim has one, and its verdict follows from them:\n  %s %s on %s: %s\n",
			args[0], strings.ToUpper(string(v[0].State)), v[0].Claim, v[0].Target, v[0].Reason)
		fmt.Fprint(s.Out, accessLine(args[0]), sharesLine(args[0]))
		switch {
		case signer != "":
			fmt.Fprintf(s.Out, "  signed by %s (a key %s lists)\n", signer, *allowed)
		case bundle.Signed(args[0]):
			fmt.Fprintf(s.Out, "  signed, signature NOT checked: give --allowed-signers FILE with the vendor's key to check it\n")
		default:
			fmt.Fprintf(s.Out, "  UNSIGNED: self-attested; the sums show no file changed after they were written, not who wrote them (certify --sign-key signs a bundle)\n")
		}
		return 0
	}
}

// checkShares holds a merged bundle's shares to the merge's refusals
// (different plans or suites, a share twice, a missing one) and to the
// plan certify runs: every case, on the bundle's one implementation.
func checkShares(b *loader.Bundle, dir string) bundle.CheckShares {
	return func(parts []bundle.MergedPart) error {
		names := make([]string, len(parts))
		sums := make([]shards.Summary, len(parts))
		for i, p := range parts {
			names[i] = "shard " + p.Share()
			sums[i] = shards.Summary{Share: shards.Share{Index: p.Index, Count: p.Count}, PlanDigest: p.PlanDigest, SuitesDigest: p.SuitesDigest, Processes: p.Processes}
		}
		if err := shards.CheckSummaries(names, sums); err != nil {
			return err
		}
		vs, err := readVerdicts(dir)
		if err != nil || len(vs) != 1 {
			return nil // verify reports the verdicts' problem
		}
		want, err := shards.PlanDigest(b, plan.Expand(b, plan.Filter{}), []string{vs[0].Target}, shards.Selection{})
		if err != nil {
			return err
		}
		if parts[0].PlanDigest != want {
			return fmt.Errorf("the shares are of plan sha256:%s, not of certify's plan on %s (sha256:%s): a narrowed or edited run supports no claim", parts[0].PlanDigest, vs[0].Target, want)
		}
		return nil
	}
}

// sharesLine says of which shares a verified merged bundle is made.
func sharesLine(dir string) string {
	m, found, err := bundle.ReadMerged(dir)
	if !found || err != nil {
		return ""
	}
	var shares []string
	for _, p := range m.Parts {
		shares = append(shares, p.Share())
	}
	return fmt.Sprintf("  MERGED from shards %s of plan sha256:%s (%s records each)\n", strings.Join(shares, ", "), m.Parts[0].PlanDigest, bundle.MergedFile)
}

// judgeBundle recomputes a bundle's verdict of the claim it names, and
// lists the claim's cases its outcomes lack.
func judgeBundle(claims []report.Claim, name string, outcomes []report.Outcome, facts []byte) (report.Verdict, []string, error) {
	i := slices.IndexFunc(claims, func(c report.Claim) bool { return c.Name == name })
	if i < 0 {
		return report.Verdict{}, nil, fmt.Errorf("%s is not a claim of this draconform", name)
	}
	var cells []runner.CellFacts
	if err := json.Unmarshal(facts, &cells); err != nil {
		return report.Verdict{}, nil, fmt.Errorf("%s: %w", bundle.FactsFile, err)
	}
	vs := report.Verdicts(claims[i:i+1], outcomes, runner.CellStates(cells), true)
	if len(vs) != 1 {
		return report.Verdict{}, nil, fmt.Errorf("the outcomes are of %d implementations: a bundle certifies one", len(vs))
	}
	var missing []string
	for _, b := range vs[0].Blocking {
		if id, _, ok := strings.Cut(b, " "+report.NoOutcome); ok {
			missing = append(missing, id)
		}
	}
	return vs[0], missing, nil
}

// accessLine says what a verified bundle records of the run's access to
// its cluster, where a reviewer should know it: an unconfined run.
func accessLine(dir string) string {
	acc, err := bundle.ReadAccess(dir)
	if err != nil || !acc.Unconfined {
		return ""
	}
	return fmt.Sprintf("  UNCONFINED: the run wrote to a cluster where draconform's admission policy did not confine its writes (found: %s), as --allow-unconfined let it\n", acc.Confined)
}
