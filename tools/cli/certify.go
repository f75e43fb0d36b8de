package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/usecase"
)

// certifyCmd runs every suite, unfiltered, on one implementation and writes
// a certification bundle for one claim of the run.
func certifyCmd(fs *pflag.FlagSet) action {
	var r usecase.CertifyRequest
	registerProviders(fs, &r.Run.Providers)
	// A vendor certifies the cluster its kubeconfig reaches.
	oneProvider(fs, "kubeconfig", "the one implementation to certify: kubeconfig (the cluster of --kubeconfig), or an embedded one (local, prototype, a mutant)")
	fs.StringVar(&r.Product, "product", "", "the Product file (kind: Product): vendor, name, version, driver, image, contact; required")
	fs.StringVar(&r.Claim, "claim", "", "the claim to certify (suites/claims.yaml: kep6406-gates-on, kep6406-gate-transitions, kep6406-partial-gates, feature-absent-safe); required: the bundle and the exit code speak for it alone")
	fs.StringVar(&r.Bundle, "bundle", "", "directory for the bundle (default: <out>/bundle)")
	fs.StringVar(&r.SignKey, "sign-key", "", "sign the bundle with this SSH key (ssh-keygen -Y sign, namespace "+usecase.SigNamespace+"; a private key, or the public key of one ssh-agent holds); unsigned, a bundle is self-attested")
	fs.StringVar(&r.Run.Out, "out", "", "directory for the run's reports and logs (default: _output/certify-<run id>)")
	fs.DurationVar(&r.Run.CaseTimeout, "case-timeout", 5*time.Minute, "bound on one case, cleanup included")
	fs.BoolVarP(&r.Run.Verbose, "verbose", "v", false, "print every step as it runs")
	fs.StringVar(&r.Run.Shard, "shard", "", "run share i of n of the plan, e.g. 2/3, on the embedded providers, and write a part bundle; draconform merge --bundle joins every share's part into one bundle")
	fs.StringVar(&r.Run.Profile, "driver-profile", "", "a DriverProfile file naming your DRA driver, its shareable devices and what one share takes (default: draconform's test driver)")
	fs.BoolVar(&r.Sonobuoy, "sonobuoy", false, "run as a Sonobuoy plugin (sonobuoy-plugin --claim): after the run, hand its reports and the bundle to Sonobuoy ($SONOBUOY_RESULTS_DIR, the bundle in its bundle/, then its done file)")
	refused := refuseFlags(fs, "certify runs every case of every suite, as shipped: a narrowed or edited run supports no claim",
		"focus", "label-filter", "suite", "cells", "suites", "fixtures", "golden", "update-golden")
	return func(ctx context.Context, _ []string, s Streams) int {
		if err := refused(); err != nil {
			fmt.Fprintln(s.Err, "draconform certify:", err)
			return 2
		}
		if r.Product == "" {
			fmt.Fprintln(s.Err, "draconform certify: --product FILE is required (see README, Self-certify your driver)")
			return 2
		}
		r.Command, r.Version = commandLine("certify", fs), buildVersion()
		r.Run.Version, r.Run.Command = r.Version.String(), os.Args
		res, err := usecase.Certify(ctx, r, s.uc())
		if err != nil || res.Part {
			return exit(s, "draconform certify:", err)
		}
		return printVerdict("certify", res.Verdict, res.BundleDir, res.Check, s)
	}
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
		parts = append(parts, "--"+f.Name+"="+usecase.ShellQuote(f.Value.String()))
	})
	return strings.Join(parts, " ")
}

// verifyBundleCmd checks a bundle as a reviewer would, and (--same-as)
// that a second bundle of the same cluster reaches its verdict by the same
// outcomes.
func verifyBundleCmd(fs *pflag.FlagSet) action {
	var r usecase.VerifyRequest
	fs.StringVar(&r.AllowedSigners, "allowed-signers", "", "an OpenSSH allowed_signers file (\"PRINCIPAL KEY\" lines): require SHA256SUMS.sig, made by a key it lists (ssh-keygen -Y verify, namespace "+usecase.SigNamespace+")")
	fs.StringVar(&r.SameAs, "same-as", "", "a second bundle of the same cluster (the Sonobuoy plugin's, retrieved): check it too, and require its verdict and each case's outcome to be DIR's (timings, messages and the records of each run aside); print each difference")
	return func(_ context.Context, args []string, s Streams) int {
		if len(args) != 1 {
			fmt.Fprintln(s.Err, "usage: draconform verify-bundle [--allowed-signers FILE] [--same-as DIR2] DIR")
			return 2
		}
		r.Dir = args[0]
		v, err := usecase.VerifyBundle(r)
		if bad, ok := err.(*usecase.InvalidBundle); ok {
			fmt.Fprintf(s.Err, "draconform verify-bundle: %s is not a valid bundle:\n", bad.Dir)
			printLines(s, bad.Error())
			return 1
		}
		mismatch, differs := err.(*usecase.Mismatch)
		if err != nil && !differs {
			return exit(s, "draconform verify-bundle:", err)
		}
		printVerified(s, r, v)
		if differs {
			fmt.Fprintf(s.Err, "draconform verify-bundle: %s is a valid bundle, but does not reach the verdict of %s by the same outcomes:\n", mismatch.SameAs, mismatch.Dir)
			printLines(s, strings.Join(mismatch.Differences, "\n"))
			return 1
		}
		if r.SameAs != "" {
			fmt.Fprintf(s.Out, "%s: a valid bundle too, of the same verdict by the same outcomes, all %d (timings, messages and the records of each run aside)\n", r.SameAs, v.Compared)
		}
		return 0
	}
}

// printLines prints each line of text on s.Err as an item of a list.
func printLines(s Streams, text string) {
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintln(s.Err, "  - "+line)
	}
}

// printVerified says what a valid bundle certifies, and who signed it.
func printVerified(s Streams, r usecase.VerifyRequest, v usecase.VerifyResult) {
	fmt.Fprintf(s.Out, "%s: a complete bundle; its sums match, its JUnit report agrees with its outcomes, every case of its claim has one, and its verdict follows from them:\n  %s %s on %s: %s\n",
		r.Dir, strings.ToUpper(string(v.Verdict.State)), v.Verdict.Claim, v.Verdict.Target, v.Verdict.Reason)
	fmt.Fprint(s.Out, v.Access, v.Shares)
	switch {
	case v.Signer != "":
		fmt.Fprintf(s.Out, "  signed by %s (a key %s lists)\n", v.Signer, r.AllowedSigners)
	case v.Signed:
		fmt.Fprintf(s.Out, "  signed, signature NOT checked: give --allowed-signers FILE with the vendor's key to check it\n")
	default:
		fmt.Fprintf(s.Out, "  UNSIGNED: self-attested; the sums show no file changed after they were written, not who wrote them (certify --sign-key signs a bundle)\n")
	}
}
