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
// an allowed_signers file to require its signature by ("" for none).
type VerifyRequest struct {
	Dir, AllowedSigners string
}

// VerifyResult is what a valid bundle says of itself: its verdict, the
// lines a reviewer should read of its access and its shares ("" for
// none), and who signed it, if anyone did and it was checked.
type VerifyResult struct {
	Verdict        report.Verdict
	Access, Shares string
	Signer         string
	Signed         bool
}

// An InvalidBundle is a bundle that failed the check: each line of Err is
// one problem.
type InvalidBundle struct{ Err error }

func (e *InvalidBundle) Error() string { return e.Err.Error() }

// VerifyBundle checks a bundle: complete, its sums matching, its verdict
// following from its outcomes by today's policy, and its signature when
// AllowedSigners is given.
func VerifyBundle(r VerifyRequest) (VerifyResult, error) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		return VerifyResult{}, failed(1, err)
	}
	claims := plan.Claims(b, plan.Expand(b, plan.Filter{}))
	judge := func(name string, outcomes []report.Outcome, facts []byte) (report.Verdict, []string, error) {
		return judgeBundle(claims, name, outcomes, facts)
	}
	err = bundle.VerifyMerged(r.Dir, suiteDigest(), judge, checkShares(b, r.Dir))
	var signer string
	if r.AllowedSigners != "" {
		var serr error
		signer, serr = bundle.VerifySignature(r.Dir, r.AllowedSigners)
		err = errors.Join(err, serr)
	}
	if err != nil {
		return VerifyResult{}, &InvalidBundle{err}
	}
	v, _ := readVerdicts(r.Dir)
	return VerifyResult{Verdict: v[0], Access: accessLine(r.Dir), Shares: sharesLine(r.Dir), Signer: signer, Signed: bundle.Signed(r.Dir)}, nil
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
