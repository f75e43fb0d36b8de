package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/runner/shards"
)

// mergeCmd joins the outputs of `run --shard i/n` into one run's, and the
// part bundles of `certify --shard i/n` into one bundle.
func mergeCmd(fs *pflag.FlagSet) action {
	var specs specFlags
	specs.register(fs)
	out := fs.String("out", "", "directory of the merged run's reports (required)")
	golden := fs.String("golden", "", "table of expected outcomes the merged run must match, e.g. docs/golden-outcomes.json")
	bundleDir := fs.String("bundle", "", "the shard folders are part bundles of certify --shard: join them into one certification bundle in this directory")
	signKey := fs.String("sign-key", "", "with --bundle: sign the merged bundle with this SSH key, as certify --sign-key does")
	return func(ctx context.Context, args []string, s Streams) int {
		if *out == "" || len(args) == 0 {
			fmt.Fprintln(s.Err, "usage: draconform merge --out DIR [--golden FILE] [--bundle DIR] SHARD_DIR...")
			return 2
		}
		for _, d := range append([]string{*bundleDir}, args...) {
			if d != "" && filepath.Clean(d) == filepath.Clean(*out) {
				fmt.Fprintf(s.Err, "draconform merge: --out %s is one of the shards' folders or the bundle's; merge into a folder of its own\n", *out)
				return 2
			}
		}
		c := shards.MergeConfig{Dirs: args, Out: *out, SuitesDir: specs.suites, FixturesDir: specs.fixtures,
			Golden: *golden, Version: buildVersion().String(), Command: os.Args, Stdout: s.Out, Stderr: s.Err}
		if *bundleDir != "" {
			if specs.suites != "" || specs.fixtures != "" || *golden != "" {
				fmt.Fprintln(s.Err, "draconform merge: --bundle joins certify's shares, which run the suites as shipped: --suites, --fixtures and --golden are refused with it")
				return 2
			}
			return mergeBundle(ctx, c, *bundleDir, *signKey, commandLine("merge", fs)+" "+strings.Join(args, " "), s)
		}
		return shards.Merge(c)
	}
}

// mergeBundle joins the part bundles of certify's shares (c.Dirs) into one
// bundle of the claim they were run for: each part's sums checked first,
// then the merge's refusals, then the verdict of the merged outcomes.
func mergeBundle(ctx context.Context, c shards.MergeConfig, dir, signKey, command string, s Streams) int {
	parts, err := readParts(c.Dirs)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform merge:", err)
		return 2
	}
	var log bytes.Buffer
	c.Stdout, c.Whole = io.MultiWriter(s.Out, &log), true
	if code := shards.Merge(c); code == 2 {
		return 2
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
		fmt.Fprintln(s.Err, "draconform merge:", err)
		return 1
	}
	claim := parts[0].Claim
	verdict, err := certifiedVerdict(ctx, c.Out, claim)
	if err != nil {
		fmt.Fprintf(s.Err, "draconform merge: %v; no bundle is written\n", err)
		return 1
	}
	p := *parts[0].Product
	p.KubernetesVersion = serverVersion(c.Out)
	var commands []string
	for _, part := range parts {
		commands = append(commands, part.Command)
	}
	check, err := bundle.WriteSigned(dir, bundle.Inputs{RunDir: c.Out, Log: logPath, Product: p, Command: strings.Join(append(commands, command), "\n"),
		Version: buildVersion(), Verdict: verdict, Merged: merged}, signKey)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform merge:", err)
		return 1
	}
	return printVerdict("merge", verdict, dir, check, s)
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
