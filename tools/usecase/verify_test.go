package usecase

import (
	"github.com/draconform/draconform/steps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/runner/shards"
)

// verify-bundle holds a merged bundle's shares to merge's refusals, and to
// certify's plan: a share missing, twice, or of another plan is refused.
func TestVerifyBundleChecksAMergedBundlesShares(t *testing.T) {
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	want, err := shards.PlanDigest(b, plan.Expand(b, plan.Filter{}), []string{"prototype"}, shards.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "verdicts.json"), []byte(`[{"claim":"kep6406-gates-on","target":"prototype"}]`), 0o644)
	part := func(i, n int, plan string, procs ...string) bundle.MergedPart {
		return bundle.MergedPart{Index: i, Count: n, PlanDigest: plan, SuitesDigest: "s", Processes: procs}
	}
	check := checkShares(b, dir)
	for _, tt := range []struct {
		name  string
		parts []bundle.MergedPart
		says  string
	}{
		{"every share", []bundle.MergedPart{part(1, 2, want, "prototype/defaults"), part(2, 2, want, "prototype/capacity-on")}, ""},
		{"a share missing", []bundle.MergedPart{part(1, 3, want, "a"), part(3, 3, want, "c")}, "missing shard 2/3 of the plan (given: 1/3, 3/3)"},
		{"a share twice", []bundle.MergedPart{part(1, 2, want, "a"), part(1, 2, want, "b")}, "overlapping shards: shard 1/2 and shard 1/2 are both shard 1/2"},
		{"a process in two shares", []bundle.MergedPart{part(1, 2, want, "a"), part(2, 2, want, "a")}, "overlapping shards: shard 1/2 and shard 2/2 both ran a"},
		{"shares of two plans", []bundle.MergedPart{part(1, 2, want, "a"), part(2, 2, "other", "b")}, "shards of different plans"},
		{"a narrowed plan", []bundle.MergedPart{part(1, 1, "narrowed", "a")}, "not of certify's plan on prototype"},
	} {
		err := check(tt.parts)
		if (err == nil) != (tt.says == "") || err != nil && !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.says)
		}
	}
}
