package usecase

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner/shards"
)

// MergeRequest joins the outputs of `run --shard i/n` (Dirs) into one
// run's, or with Bundle the part bundles of `certify --shard i/n` into one
// bundle.
type MergeRequest struct {
	Dirs    []string
	Specs   Specs
	Out     string
	Golden  string
	Bundle  string
	SignKey string
	// Command is the merge's command line (as os.Args), BundleCommand as
	// the merged bundle records it.
	Command       []string
	BundleCommand string
	Version       Version
}

// MergeResult is, for a merge of part bundles, the bundle written.
type MergeResult struct {
	Bundled   bool
	Verdict   report.Verdict
	BundleDir string
	Check     string
}

// Merge joins the shares; the merged run's report goes to s.
func Merge(ctx context.Context, r MergeRequest, s Streams) (MergeResult, error) {
	for _, d := range append([]string{r.Bundle}, r.Dirs...) {
		if d != "" && filepath.Clean(d) == filepath.Clean(r.Out) {
			return MergeResult{}, failed(2, fmt.Errorf("--out %s is one of the shards' folders or the bundle's; merge into a folder of its own", r.Out))
		}
	}
	c := shards.MergeConfig{Dirs: r.Dirs, Out: r.Out, SuitesDir: r.Specs.Suites, FixturesDir: r.Specs.Fixtures,
		Golden: r.Golden, Version: r.Version.String(), Command: r.Command, Stdout: s.Out, Stderr: s.Err}
	if r.Bundle == "" {
		return MergeResult{}, said(shards.Merge(c))
	}
	if !r.Specs.BuiltIn() || r.Golden != "" {
		return MergeResult{}, failed(2, fmt.Errorf("--bundle joins certify's shares, which run the suites as shipped: --suites, --fixtures and --golden are refused with it"))
	}
	return mergeBundle(ctx, c, r, s)
}

// mergeBundle joins the part bundles of certify's shares (c.Dirs) into one
// bundle of the claim they were run for: each part's sums checked first,
// then the merge's refusals, then the verdict of the merged outcomes.
func mergeBundle(ctx context.Context, c shards.MergeConfig, r MergeRequest, s Streams) (MergeResult, error) {
	parts, err := readParts(c.Dirs)
	if err != nil {
		return MergeResult{}, failed(2, err)
	}
	var log bytes.Buffer
	c.Stdout, c.Whole = io.MultiWriter(s.Out, &log), true
	if code := shards.Merge(c); code == 2 {
		return MergeResult{}, said(2)
	}
	merged, err := mergedRecord(parts)
	if err == nil {
		err = bundle.WriteAccess(c.Out, bundle.JoinAccess(parts))
	}
	var logPath string
	if err == nil {
		logPath, err = writeMergedLog(c.Out, parts, log.Bytes())
	}
	if err != nil {
		return MergeResult{}, failed(1, err)
	}
	verdict, err := certifiedVerdict(ctx, c.Out, parts[0].Claim)
	if err != nil {
		return MergeResult{}, failed(1, fmt.Errorf("%w; no bundle is written", err))
	}
	p := *parts[0].Product
	p.KubernetesVersion = serverVersion(c.Out)
	var commands []string
	for _, part := range parts {
		commands = append(commands, part.Command)
	}
	check, err := bundle.WriteSigned(r.Bundle, bundle.Inputs{RunDir: c.Out, Log: logPath, Product: p, Command: strings.Join(append(commands, r.BundleCommand), "\n"),
		Version: r.Version, Verdict: verdict, Merged: merged}, r.SignKey)
	if err != nil {
		return MergeResult{}, failed(1, err)
	}
	return MergeResult{Bundled: true, Verdict: verdict, BundleDir: r.Bundle, Check: check}, nil
}

// readParts reads the part bundles, refusing one changed after certify
// wrote it, and parts of different claims or products.
func readParts(dirs []string) ([]bundle.Part, error) {
	var parts []bundle.Part
	for _, d := range dirs {
		p, err := bundle.ReadPart(d)
		if err != nil {
			return nil, fmt.Errorf("refused: %w", err)
		}
		first := p
		if len(parts) > 0 {
			first = parts[0]
		}
		a, b := *first.Product, *p.Product
		a.KubernetesVersion, b.KubernetesVersion = "", ""
		switch {
		case p.Claim != first.Claim:
			return nil, fmt.Errorf("refused: %s certifies %s, %s %s: the shares of one bundle certify one claim", first.Dir, first.Claim, d, p.Claim)
		case a != b:
			return nil, fmt.Errorf("refused: %s and %s certify different products (%s)", first.Dir, d, bundle.ProductFile)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// mergedRecord is what the merged bundle records of each share.
func mergedRecord(parts []bundle.Part) (*bundle.Merged, error) {
	m := &bundle.Merged{Format: bundle.MergedFormat}
	for _, p := range parts {
		rec, err := shards.ReadRecord(p.Dir)
		if err != nil {
			return nil, err
		}
		sum := rec.Summary()
		mp := bundle.MergedPart{Index: sum.Share.Index, Count: sum.Share.Count, PlanDigest: sum.PlanDigest, SuitesDigest: sum.SuitesDigest,
			Processes: sum.Processes, OutcomesDigest: bundle.OutcomesDigest(sum.Outcomes), PartSums: p.Sums}
		for _, o := range sum.Outcomes {
			mp.Outcomes = append(mp.Outcomes, o.Name())
		}
		m.Parts = append(m.Parts, mp)
	}
	return m, nil
}

// writeMergedLog writes the merged bundle's log: each share's whole
// output, then the merge's.
func writeMergedLog(out string, parts []bundle.Part, merge []byte) (string, error) {
	var b bytes.Buffer
	for _, p := range parts {
		data, err := os.ReadFile(filepath.Join(p.Dir, bundle.LogFile))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "==== part bundle %s: %s\n", p.Dir, strings.SplitN(p.Command, "\n", 2)[0])
		b.Write(data)
	}
	b.WriteString("==== draconform merge --bundle\n")
	b.Write(merge)
	path := filepath.Join(out, bundle.LogFile)
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}
