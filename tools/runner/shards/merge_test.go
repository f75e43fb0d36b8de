package shards

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every way a set of folders fails to be the shares of one plan is refused
// with its reason and exit 2, before anything is written.
func TestMergeRefusesWhatIsNotOnePlansShares(t *testing.T) {
	builtIn, err := SuitesDigest("", "")
	if err != nil {
		t.Fatal(err)
	}
	share := func(i, n int, plan, suites string, procs ...string) *Record {
		r := &Record{Share: Share{i, n}, PlanDigest: plan, SuitesDigest: suites, Targets: []string{"local"}, Providers: []string{"local"}}
		for _, p := range procs {
			r.Processes = append(r.Processes, Process{Shard: Shard{Target: "local", Cell: p, Part: 1, Parts: 1}})
		}
		return r
	}
	for _, tc := range []struct {
		name   string
		shares []*Record // nil: a folder with no record
		want   string
	}{
		{"no folder", nil, "no shard folder given"},
		{"a folder that is no shard's", []*Record{share(1, 2, "p", builtIn, "a"), nil}, "is no output of draconform run --shard"},
		{"different plans", []*Record{share(1, 2, "p", builtIn, "a"), share(2, 2, "q", builtIn, "b")}, "shards of different plans"},
		{"different suites", []*Record{share(1, 2, "p", builtIn, "a"), share(2, 2, "p", "other", "b")}, "shards of different suites"},
		{"different splits", []*Record{share(1, 2, "p", builtIn, "a"), share(2, 3, "p", builtIn, "b")}, "shards of different splits"},
		{"the same share twice", []*Record{share(1, 2, "p", builtIn, "a"), share(1, 2, "p", builtIn, "a"), share(2, 2, "p", builtIn, "b")}, "overlapping shards"},
		{"a process in two shares", []*Record{share(1, 2, "p", builtIn, "a"), share(2, 2, "p", builtIn, "a", "b")}, "overlapping shards: " + "%s and %s both ran local/a"},
		{"a missing share", []*Record{share(1, 3, "p", builtIn, "a"), share(3, 3, "p", builtIn, "c")}, "missing shard 2/3 of the plan (given: 1/3, 3/3)"},
		{"a share no split has", []*Record{share(3, 2, "p", builtIn, "a")}, "is shard 3/2, which no split has"},
		{"suites other than the shares'", []*Record{share(1, 1, "p", "other", "a")}, "are not the ones the shards ran"},
		{"a plan that does not expand again", []*Record{share(1, 1, "p", builtIn, "a")}, "does not expand again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			for i, r := range tc.shares {
				d := filepath.Join(root, "s"+string(rune('1'+i)))
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if r != nil {
					if err := writeRecord(d, *r); err != nil {
						t.Fatal(err)
					}
				}
				dirs = append(dirs, d)
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.NewReplacer("%s and %s", dirs[0]+" and "+dirs[1]).Replace(want)
			}
			out := filepath.Join(root, "merged")
			var stdout, stderr bytes.Buffer
			code := Merge(MergeConfig{Dirs: dirs, Out: out, Stdout: &stdout, Stderr: &stderr})
			if code != 2 || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, said %q; want exit 2 saying %q", code, stderr.String(), want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused merge wrote %s", out)
			}
		})
	}
}

func TestSharesAreDealtByCostTheSameEachTime(t *testing.T) {
	procs := []Shard{{Cell: "a", Cost: 50}, {Cell: "b", Cost: 40}, {Cell: "c", Cost: 30}, {Cell: "d", Cost: 20}, {Cell: "e", Cost: 10}, {Cell: "f", Cost: 10}}
	got := Assign(procs, 3)
	var lines []string
	for _, share := range got {
		var cells []string
		cost := 0.0
		for _, p := range share {
			cells = append(cells, p.Cell)
			cost += p.Cost
		}
		lines = append(lines, strings.Join(cells, "")+":"+strings.TrimRight(strings.TrimRight(strconvF(cost), "0"), "."))
	}
	// Costliest first, each to the cheapest share so far, the first on a
	// tie: a, b, c one each; d to c's (30); e to b's (40); f to a's (50, tied).
	if want := "af:60 be:50 cd:50"; strings.Join(lines, " ") != want {
		t.Errorf("shares %s, want %s", strings.Join(lines, " "), want)
	}
	for _, s := range []string{"0/3", "4/3", "1", "a/b", "1/0", ""} {
		if _, err := ParseShare(s); err == nil {
			t.Errorf("--shard %q was taken", s)
		}
	}
	if s, err := ParseShare("2/3"); err != nil || s != (Share{2, 3}) {
		t.Errorf("--shard 2/3: %v, %v", s, err)
	}
}

func strconvF(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
