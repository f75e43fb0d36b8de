package shards

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
)

// Share is one of Count shares of a plan (`draconform run --shard
// Index/Count`), run on a machine or CI job of its own; `draconform merge`
// joins the shares' outputs into one run.
type Share struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Share) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShare reads --shard's i/n: 1 <= i <= n.
func ParseShare(s string) (Share, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return Share{}, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 2/3", s)
	}
	return Share{Index: index, Count: count}, nil
}

// Assign deals a run's processes (Plan's, the costliest first) into n
// shares of about equal cost: each process goes to the share with the
// least cost so far, the lowest numbered on a tie. The plan is in a fixed
// order, so every machine that plans the same run deals it the same way.
func Assign(processes []Shard, n int) [][]Shard {
	out := make([][]Shard, n)
	cost := make([]float64, n)
	for _, p := range processes {
		least := 0
		for j := range cost {
			if cost[j] < cost[least] {
				least = j
			}
		}
		out[least] = append(out[least], p)
		cost[least] += p.Cost
	}
	return out
}

// specFS are the suites and fixtures a run reads: the folders given, or the
// ones built into the binary; dirs names them for file:line errors.
func specFS(suitesDir, fixturesDir string) (sfs, ffs fs.FS, sdir, fdir string) {
	sfs, ffs, sdir, fdir = suites.FS, fixtures.FS, "suites", "fixtures"
	if suitesDir != "" {
		sfs, sdir = os.DirFS(suitesDir), filepath.Clean(suitesDir)
	}
	if fixturesDir != "" {
		ffs, fdir = os.DirFS(fixturesDir), filepath.Clean(fixturesDir)
	}
	return sfs, ffs, sdir, fdir
}

// SuitesDigest is the digest of every file of the suites and fixtures a
// run reads (as `draconform version` gives the built-in ones').
func SuitesDigest(suitesDir, fixturesDir string) (string, error) {
	sfs, ffs, _, _ := specFS(suitesDir, fixturesDir)
	return loader.Digest(sfs, ffs)
}

// Selection is what narrows a plan, recorded so that a merge can expand
// the same plan again.
type Selection struct {
	Cells       []string `json:"cells,omitempty"`
	Suites      []string `json:"suites,omitempty"`
	Focus       string   `json:"focus,omitempty"`
	LabelFilter string   `json:"labelFilter,omitempty"`
}

// PlanDigest identifies a run's plan: its implementations, its selection,
// and each planned case by what it runs (plan.Digest), so that two
// shares of different suites, selections or implementations never pass
// for one plan.
func PlanDigest(b *loader.Bundle, cases []plan.Case, targets []string, sel Selection) (string, error) {
	var lines []string
	for _, c := range cases {
		d, err := plan.Digest(b, c)
		if err != nil {
			return "", fmt.Errorf("digest of %s: %w", c.ID, err)
		}
		lines = append(lines, c.ID+" "+d)
	}
	sort.Strings(lines)
	h := sha256.New()
	fmt.Fprintf(h, "targets %s\ncells %s\nsuites %s\nfocus %q\nlabels %q\n",
		strings.Join(targets, ","), strings.Join(sel.Cells, ","), strings.Join(sel.Suites, ","), sel.Focus, sel.LabelFilter)
	for _, l := range lines {
		fmt.Fprintln(h, l)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
