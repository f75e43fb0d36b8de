package shards

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

func reportOf(states ...types.SpecState) types.Report {
	var r types.Report
	for i, st := range states {
		r.SpecReports = append(r.SpecReports, types.SpecReport{LeafNodeType: types.NodeTypeIt, State: st, LeafNodeText: "case " + string(rune('a'+i))})
	}
	return r
}

// A run's progress is a line when each cell starts and one when it ends,
// however many processes run the cell: the end line adds up its parts.
func TestProgressIsTwoLinesACell(t *testing.T) {
	shards := []Shard{
		{Target: "prototype", Cell: "capacity-on", Part: 1, Parts: 2},
		{Target: "prototype", Cell: "capacity-on", Part: 2, Parts: 2},
		{Target: "local", Cell: "defaults", Part: 1, Parts: 1},
	}
	var out bytes.Buffer
	c := Config{Out: &out}
	c.runAll(context.Background(), shards, 1, func(sh Shard) result {
		r := reportOf(types.SpecStatePassed, types.SpecStateSkipped)
		if sh.Part == 2 {
			r = reportOf(types.SpecStatePassed, types.SpecStateFailed)
		}
		return result{Shard: sh, out: runner.Shard{Report: r}, seconds: 1}
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"[start] prototype/capacity-on (in 2 processes)",
		"[ 1/2] prototype/capacity-on: 2 passed, 1 failed, 1 skipped in",
		"        failed: case b",
		"[start] local/defaults",
		"[ 2/2] local/defaults: 1 passed, 0 failed, 1 skipped in",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d is %q, want it to begin %q", i+1, lines[i], w)
		}
	}
}

// With --fail-fast, no process starts after one reports a blocking
// failure: the cells left are not run, and say why. An informing failure
// goes on.
func TestFailFastStartsNoCellAfterABlockingFailure(t *testing.T) {
	key := func(informing bool) types.ReportEntry {
		return types.ReportEntry{Name: report.EntryKey, Value: types.WrapEntryValue(report.Key{Target: "t", Suite: "s", Case: "x", Cell: "c1", Informing: informing})}
	}
	for _, informing := range []bool{false, true} {
		shards := []Shard{{Target: "t", Cell: "c1", Part: 1, Parts: 1}, {Target: "t", Cell: "c2", Part: 1, Parts: 1}, {Target: "t", Cell: "c3", Part: 1, Parts: 1}}
		var out bytes.Buffer
		c := Config{Out: &out, Options: runner.Options{FailFast: true}}
		ran := 0
		results := c.runAll(context.Background(), shards, 1, func(sh Shard) result {
			ran++
			r := reportOf(types.SpecStatePassed)
			if sh.Cell == "c1" {
				r = reportOf(types.SpecStateFailed)
				r.SpecReports[0].ReportEntries = append(r.SpecReports[0].ReportEntries, key(informing))
			}
			return result{Shard: sh, out: runner.Shard{Report: r}}
		})
		want := 1
		if informing {
			want = 3
		}
		if ran != want {
			t.Errorf("informing %t: %d cells ran, want %d:\n%s", informing, ran, want, out.String())
		}
		if !informing {
			for _, res := range results[1:] {
				if res.err == nil || !strings.Contains(res.err.Error(), "not run: --fail-fast stopped the run after the blocking failure of [t] s/x@c1") {
					t.Errorf("cell %s: %v, want not run after the failure", res.Cell, res.err)
				}
			}
		}
	}
}

// A cell that ends before StartLineAfter is one line; a longer one gets its
// start line while it runs.
func TestAQuickCellIsOneLine(t *testing.T) {
	shards := []Shard{{Target: "local", Cell: "capacity-on", Part: 1, Parts: 1}, {Target: "prototype", Cell: "capacity-on", Part: 1, Parts: 1}}
	out := &lockedBuffer{}
	c := Config{Out: out, startLineAfter: time.Second}
	c.runAll(context.Background(), shards, 1, func(sh Shard) result {
		if sh.Target == "prototype" {
			// A long cell: it runs until the progress says it started.
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(out.String(), "[start] prototype/capacity-on") && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		return result{Shard: sh, out: runner.Shard{Report: reportOf(types.SpecStateSkipped)}, seconds: 1}
	})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"[ 1/2] local/capacity-on: 0 passed", "[start] prototype/capacity-on", "[ 2/2] prototype/capacity-on: 0 passed"}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d is %q, want it to begin %q", i+1, lines[i], w)
		}
	}
}

// lockedBuffer is a buffer the progress writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
