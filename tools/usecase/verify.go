package usecase

import (
	"errors"
	"fmt"
	"github.com/draconform/draconform/steps"
	"strings"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner/shards"
)

// SigNamespace is the namespace of a bundle's SSH signature.
const SigNamespace = bundle.SigNamespace

// VerifyRequest is a bundle to check as a reviewer would: its folder, and
// an allowed_signers file to require its signature by ("" for none); and
// SameAs, a second bundle of the same cluster (the Sonobuoy plugin's,
// beside certify's) whose verdict and outcomes must be the first's.
type VerifyRequest struct {
	Dir, AllowedSigners, SameAs string
}

// VerifyResult is what a valid bundle says of itself: its verdict, the
// lines a reviewer should read of its access and its shares ("" for
// none), and who signed it, if anyone did and it was checked; and how
// many outcomes SameAs was found to share.
type VerifyResult struct {
	Verdict        report.Verdict
	Access, Shares string
	Signer         string
	Signed         bool
	Compared       int
}

// An InvalidBundle is a bundle that failed the check: each line of Err is
// one problem.
type InvalidBundle struct {
	Dir string
	Err error
}

func (e *InvalidBundle) Error() string { return e.Err.Error() }

// A Mismatch is a valid bundle (SameAs) whose verdict or outcomes are not
// those of the bundle it was compared with: one line a difference.
type Mismatch struct {
	Dir, SameAs string
	Differences []string
}

func (e *Mismatch) Error() string {
	return fmt.Sprintf("%s does not reach the verdict of %s by the same outcomes:\n%s", e.SameAs, e.Dir, strings.Join(e.Differences, "\n"))
}

// VerifyBundle checks a bundle: complete, its sums matching, its verdict
// following from its outcomes by today's policy, and its signature when
// AllowedSigners is given; then, with SameAs, checks that bundle alike
// (its signature aside) and compares the two.
func VerifyBundle(r VerifyRequest) (VerifyResult, error) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		return VerifyResult{}, failed(1, err)
	}
	res, err := verifyOne(b, r.Dir, r.AllowedSigners)
	if err != nil || r.SameAs == "" {
		return res, err
	}
	if _, err := verifyOne(b, r.SameAs, ""); err != nil {
		return res, err
	}
	diffs, n, err := bundle.Compare(r.Dir, r.SameAs)
	if err != nil {
		return res, failed(1, err)
	}
	if len(diffs) > 0 {
		return res, &Mismatch{Dir: r.Dir, SameAs: r.SameAs, Differences: diffs}
	}
	res.Compared = n
	return res, nil
}

// verifyOne checks the bundle in dir, and its signature by allowedSigners
// where that is given.
func verifyOne(b *loader.Bundle, dir, allowedSigners string) (VerifyResult, error) {
	claims := plan.Claims(b, plan.Expand(b, plan.Filter{}))
	judge := func(name string, outcomes []report.Outcome, facts []byte) (report.Verdict, []string, error) {
		return judgeBundle(claims, name, outcomes, facts)
	}
	err := bundle.VerifyMerged(dir, suiteDigest(), judge, checkShares(b, dir))
	var signer string
	if allowedSigners != "" {
		var serr error
		signer, serr = bundle.VerifySignature(dir, allowedSigners)
		err = errors.Join(err, serr)
	}
	if err != nil {
		return VerifyResult{}, &InvalidBundle{Dir: dir, Err: err}
	}
	v, _ := readVerdicts(dir)
	return VerifyResult{Verdict: v[0], Access: accessLine(dir), Shares: sharesLine(dir), Signer: signer, Signed: bundle.Signed(dir)}, nil
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

// accessLine says what a verified bundle records of the run's access to
// its cluster, where a reviewer should know it: an unconfined run.
func accessLine(dir string) string {
	acc, err := bundle.ReadAccess(dir)
	if err != nil || !acc.Unconfined {
		return ""
	}
	return fmt.Sprintf("  UNCONFINED: the run wrote to a cluster where draconform's admission policy did not confine its writes (found: %s), as --allow-unconfined let it\n", acc.Confined)
}
