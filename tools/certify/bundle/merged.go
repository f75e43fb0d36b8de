package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/report"
)

// A merged bundle is one bundle of a plan run as shares (`certify --shard
// i/n`, joined by `draconform merge --bundle`): a bundle's files, its
// outcomes, verdict and facts those of the whole plan, plus MergedFile,
// which records each share. A bundle without MergedFile is a bundle of
// one run, as before.
const (
	MergedFile = "shards.json"
	// MergedFormat is the version of MergedFile; a draconform that reads
	// another refuses the bundle, naming both.
	MergedFormat = "draconform-merged-bundle/v1"
)

// Merged is MergedFile.
type Merged struct {
	Format string       `json:"format"`
	Parts  []MergedPart `json:"parts"`
}

// MergedPart is what a merged bundle records of one share.
type MergedPart struct {
	Index        int    `json:"index"`
	Count        int    `json:"count"`
	PlanDigest   string `json:"planDigest"`
	SuitesDigest string `json:"suitesDigest"`
	// Processes are the plan's processes (implementation/cell, a cell's
	// part) the share ran.
	Processes []string `json:"processes"`
	// Outcomes name the outcomes the share reported, OutcomesDigest
	// (OutcomesDigest) is of their states: a verifier finds them in the
	// merged outcomes.
	Outcomes       []string `json:"outcomes"`
	OutcomesDigest string   `json:"outcomesDigest"`
	// PartSums is the sha256 of the part bundle's SHA256SUMS.
	PartSums string `json:"partSums"`
}

// Share is the part as --shard spells it.
func (p MergedPart) Share() string { return fmt.Sprintf("%d/%d", p.Index, p.Count) }

// CheckShares says why parts are not the shares of one plan, each once,
// none missing: the refusals of `draconform merge`, which the caller
// holds (the runner's shards), or nil.
type CheckShares func(parts []MergedPart) error

// OutcomesDigest is the digest of outcomes by name, state and cause, in
// any order.
func OutcomesDigest(outcomes []report.Outcome) string {
	lines := make([]string, len(outcomes))
	for i, o := range outcomes {
		lines[i] = fmt.Sprintf("%s %s %s", o.Name(), o.State, o.Cause)
	}
	sort.Strings(lines)
	return sha([]byte(strings.Join(lines, "\n")))
}

// ReadMerged reads a bundle's MergedFile; found is false for a bundle of
// one run.
func ReadMerged(dir string) (m Merged, found bool, err error) {
	if _, err := readFile(dir, MergedFile); errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err := readJSON(dir, MergedFile, &m); err != nil {
		return m, true, err
	}
	if m.Format != MergedFormat {
		return m, true, fmt.Errorf("%s is of format %q; this draconform reads %q: verify the bundle with the draconform its %s names", MergedFile, m.Format, MergedFormat, VersionFile)
	}
	return m, true, nil
}

// verifyMerged checks a merged bundle's record of its shares against its
// outcomes: the shares are one plan's, of the suites the bundle was made
// with, each once and none missing (check), and every outcome is one
// share's, as that share reported it.
func verifyMerged(m Merged, outcomes []report.Outcome, suiteDigest string, check CheckShares) []error {
	var probs []error
	if check == nil {
		return []error{fmt.Errorf("%s: a merged bundle, and no check of its shares was given", MergedFile)}
	}
	if len(m.Parts) == 0 {
		return []error{fmt.Errorf("%s records no share", MergedFile)}
	}
	if err := check(m.Parts); err != nil {
		probs = append(probs, fmt.Errorf("%s: %w", MergedFile, err))
	}
	byName := map[string]report.Outcome{}
	for _, o := range outcomes {
		byName[o.Name()] = o
	}
	owner := map[string]string{}
	for _, p := range m.Parts {
		if p.SuitesDigest != suiteDigest {
			probs = append(probs, fmt.Errorf("%s: shard %s ran suites sha256:%s, the bundle's are sha256:%s", MergedFile, p.Share(), p.SuitesDigest, suiteDigest))
		}
		var mine []report.Outcome
		for _, name := range p.Outcomes {
			o, ok := byName[name]
			if !ok {
				probs = append(probs, fmt.Errorf("%s: shard %s reported %s, which %s lacks", MergedFile, p.Share(), name, OutcomesFile))
				continue
			}
			if other, ok := owner[name]; ok {
				probs = append(probs, fmt.Errorf("%s: shards %s and %s both reported %s", MergedFile, other, p.Share(), name))
			}
			owner[name] = p.Share()
			mine = append(mine, o)
		}
		if OutcomesDigest(mine) != p.OutcomesDigest {
			probs = append(probs, fmt.Errorf("the outcomes of shard %s in %s are not the ones it reported (digest %s, %s records %s): the bundle was changed after the merge", p.Share(), OutcomesFile, OutcomesDigest(mine), MergedFile, p.OutcomesDigest))
		}
	}
	for _, o := range outcomes {
		if _, ok := owner[o.Name()]; !ok {
			probs = append(probs, fmt.Errorf("%s: %s is of no shard %s records", OutcomesFile, o.Name(), MergedFile))
		}
	}
	return probs
}

// mergedSection is the README's account of the shares.
func mergedSection(m *Merged) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Shares\n\nThe plan ran as shares (`certify --shard i/n`), each on clusters of its own, joined by `draconform merge --bundle`;\n")
	fmt.Fprintf(&b, "`%s` records each, and `verify-bundle` refuses shares of different plans or suites, a share twice, a missing one,\nand outcomes that are not the ones a share reported.\n\n", MergedFile)
	b.WriteString("| shard | plan | suites | processes | outcomes | part's SHA256SUMS |\n|---|---|---|---|---|---|\n")
	for _, p := range m.Parts {
		fmt.Fprintf(&b, "| %s | sha256:%.12s | sha256:%.12s | %d | %d | sha256:%.12s |\n", p.Share(), p.PlanDigest, p.SuitesDigest, len(p.Processes), len(p.Outcomes), p.PartSums)
	}
	return b.String() + "\n"
}
