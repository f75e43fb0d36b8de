package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/bundle"
	"github.com/draconform/draconform/tools/loader"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// certifyCmd runs every suite, unfiltered, on one implementation and writes
// a certification bundle of the run.
func certifyCmd(fs *pflag.FlagSet) action {
	var r runRequest
	r.prov.register(fs)
	// A vendor certifies the cluster its kubeconfig reaches.
	oneProvider(fs, "kubeconfig", "the one implementation to certify: kubeconfig (the cluster of --kubeconfig), or an embedded one (local, prototype, a mutant)")
	product := fs.String("product", "", "the Product file (kind: Product): vendor, name, version, driver, image, contact; required")
	bundleDir := fs.String("bundle", "", "directory for the bundle (default: <out>/bundle)")
	fs.StringVar(&r.out, "out", "", "directory for the run's reports and logs (default: _output/certify-<run id>)")
	fs.DurationVar(&r.caseTimeout, "case-timeout", 5*time.Minute, "bound on one case, cleanup included")
	fs.BoolVarP(&r.verbose, "verbose", "v", false, "print every step as it runs")
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
		if strings.Contains(r.prov.provider, ",") {
			fmt.Fprintf(s.Err, "draconform certify: a bundle certifies one implementation; --provider names %s\n", r.prov.provider)
			return 2
		}
		p, err := loader.LoadProduct(*product)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 2
		}
		if r.profile != "" {
			prof, err := loader.LoadProfile(r.profile)
			if err != nil {
				fmt.Fprintln(s.Err, "draconform certify:", err)
				return 2
			}
			if prof.Driver != p.Driver {
				fmt.Fprintf(s.Err, "draconform certify: the product's driver is %s, the driver profile's %s: certify the driver the profile describes\n", p.Driver, prof.Driver)
				return 2
			}
		}
		if r.out == "" {
			r.out = filepath.Join("_output", "certify-"+runner.NewRunID())
		}
		runDir, err := outputDir(r.out, "")
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 1
		}
		logPath := filepath.Join(runDir, "e2e.log")
		logFile, err := os.Create(logPath)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 1
		}
		tee := Streams{Out: io.MultiWriter(s.Out, logFile), Err: io.MultiWriter(s.Err, logFile)}
		command := commandLine("certify", fs)
		v := buildVersion()
		fmt.Fprintf(tee.Out, "draconform certify: %s\n  %s\n", v, command)
		r.out = runDir
		_, code := runSuites(ctx, r, tee)
		// A run split by cell wrote each cell's full output apart; the
		// bundle's log holds them all, as a reviewer reads it.
		appendShardLogs(logFile, runDir)
		logFile.Close()
		verdicts, err := readVerdicts(runDir)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform certify: the run left no verdicts, so no bundle:", err)
			return max(code, 1)
		}
		p.KubernetesVersion = serverVersion(runDir)
		if *bundleDir == "" {
			*bundleDir = filepath.Join(runDir, "bundle")
		}
		if err := bundle.Write(*bundleDir, bundle.Inputs{RunDir: runDir, Log: logPath, Product: *p, Command: command, Version: v, Verdicts: verdicts}); err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 1
		}
		fmt.Fprintf(s.Out, "\nbundle: %s (check it with: draconform verify-bundle %s)\n", *bundleDir, *bundleDir)
		return certifyExit(verdicts, s)
	}
}

// certifyExit is 0 when at least one claim stands and none fails.
func certifyExit(vs []report.Verdict, s Streams) int {
	conformant := 0
	for _, v := range vs {
		switch v.State {
		case report.NotConformant:
			return 1
		case report.Conformant:
			conformant++
		}
	}
	if conformant == 0 {
		fmt.Fprintln(s.Err, "draconform certify: no claim applies to this cluster, so nothing is certified (see the verdicts)")
		return 1
	}
	return 0
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
func verifyBundleCmd(*pflag.FlagSet) action {
	return func(_ context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			fmt.Fprintln(s.Err, "usage: draconform verify-bundle DIR")
			return 2
		}
		b, err := loader.Load(suites.FS, fixtures.FS)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform verify-bundle:", err)
			return 1
		}
		claims := plan.Claims(b, plan.Expand(b, plan.Filter{}))
		judge := func(outcomes []report.Outcome, facts []byte) ([]report.Verdict, error) {
			var cells []runner.CellFacts
			if err := json.Unmarshal(facts, &cells); err != nil {
				return nil, fmt.Errorf("%s: %w", bundle.FactsFile, err)
			}
			return report.Verdicts(claims, outcomes, runner.FieldStates(cells), true), nil
		}
		if err := bundle.Verify(args[0], suiteDigest(), judge); err != nil {
			fmt.Fprintf(s.Err, "draconform verify-bundle: %s is not a valid bundle:\n", args[0])
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintln(s.Err, "  - "+line)
			}
			return 1
		}
		fmt.Fprintf(s.Out, "%s: a complete bundle; its sums match, its JUnit report agrees with its outcomes, and its verdicts follow from them\n", args[0])
		return 0
	}
}
