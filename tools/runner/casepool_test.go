package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
)

// poolCase is a case of cell "c" on target "t".
func poolCase(id string, alone, kubelet bool) plan.Case {
	return plan.Case{ID: id, Target: "t", Alone: alone, Cell: &spec.Cell{Name: "c"},
		Case: &spec.Case{ID: id, Requires: spec.Requires{TestDriver: kubelet}}}
}

// tracker records how many cases, and how many kubelet cases, ran at once.
type tracker struct {
	mu                           sync.Mutex
	now, nowKubelet, most, mostK int
	ended                        map[string]time.Time
}

func (tr *tracker) run(hold time.Duration) func(context.Context, plan.Case) *caseResult {
	return func(ctx context.Context, c plan.Case) *caseResult {
		tr.mu.Lock()
		tr.now++
		tr.most = max(tr.most, tr.now)
		if c.Case.Requires.Kubelet() {
			tr.nowKubelet++
			tr.mostK = max(tr.mostK, tr.nowKubelet)
		}
		tr.mu.Unlock()
		select {
		case <-time.After(hold):
		case <-ctx.Done():
		}
		tr.mu.Lock()
		tr.now--
		if c.Case.Requires.Kubelet() {
			tr.nowKubelet--
		}
		tr.ended[c.ID] = time.Now()
		tr.mu.Unlock()
		r := newCaseResult(false)
		r.printf("ran %s\n", c.ID)
		return r
	}
}

func TestPoolRunsCasesBesideEachOtherWithinItsWidth(t *testing.T) {
	var cases []plan.Case
	for i := range 8 {
		cases = append(cases, poolCase(fmt.Sprintf("plain-%d", i), false, false))
	}
	cases = append(cases, poolCase("node-1", false, true), poolCase("node-2", false, true), poolCase("node-3", false, true))
	tr := &tracker{ended: map[string]time.Time{}}
	p := startPoolWith(cases, 3, tr.run(50*time.Millisecond))
	defer p.stop()
	for _, c := range cases {
		r, err := p.result(context.Background(), c)
		if err != nil || r == nil {
			t.Fatalf("%s: result %v, %v; the pool runs every case that does not need the cluster to itself", c.ID, r, err)
		}
		if got := r.log.String(); got != "ran "+c.ID+"\n" {
			t.Errorf("%s: the result carries the log %q", c.ID, got)
		}
	}
	if tr.most < 2 || tr.most > 3 {
		t.Errorf("at most %d cases ran at once, want 2 to 3 with a width of 3", tr.most)
	}
	if tr.mostK != 1 {
		t.Errorf("%d kubelet cases ran at once: they share the cell's one node and must take turns", tr.mostK)
	}
}

func TestPoolLeavesAloneCasesToTheirSpecsAfterTheCellsOthers(t *testing.T) {
	slow := poolCase("slow", false, false)
	alone := poolCase("alone", true, false)
	tr := &tracker{ended: map[string]time.Time{}}
	p := startPoolWith([]plan.Case{slow, alone}, 4, tr.run(200*time.Millisecond))
	defer p.stop()
	r, err := p.result(context.Background(), alone)
	if err != nil || r != nil {
		t.Fatalf("a case that needs the cluster to itself: result %v, %v; want none, for its spec to run it", r, err)
	}
	tr.mu.Lock()
	_, slowEnded := tr.ended["slow"]
	_, aloneRan := tr.ended["alone"]
	tr.mu.Unlock()
	if !slowEnded {
		t.Error("the alone case was let run while another case of its cell was still running")
	}
	if aloneRan {
		t.Error("the pool ran a case that needs the cluster to itself")
	}
}

func TestPoolStopInterruptsCasesStillWaiting(t *testing.T) {
	var cases []plan.Case
	for i := range 3 {
		cases = append(cases, poolCase(fmt.Sprintf("long-%d", i), false, false))
	}
	tr := &tracker{ended: map[string]time.Time{}}
	p := startPoolWith(cases, 1, tr.run(time.Hour))
	for running := false; !running; time.Sleep(5 * time.Millisecond) {
		tr.mu.Lock()
		running = tr.now == 1
		tr.mu.Unlock()
	}
	done := make(chan struct{})
	go func() { p.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stop did not end the running case and the waiting ones")
	}
	waited := 0
	for _, c := range cases {
		r, _ := p.result(context.Background(), c)
		if r != nil && r.failure == "the run was interrupted before this case began" {
			waited++
		}
	}
	if waited != 2 {
		t.Errorf("%d cases reported as interrupted before they began, want the 2 behind the running one", waited)
	}
}

func TestPoolResultGivesUpWhenTheSpecIsInterrupted(t *testing.T) {
	c := poolCase("long", false, false)
	tr := &tracker{ended: map[string]time.Time{}}
	p := startPoolWith([]plan.Case{c}, 1, tr.run(time.Hour))
	defer p.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.result(ctx, c); err == nil {
		t.Error("waiting for a case must end with the spec's context")
	}
}

func TestNoPoolRunsEveryCaseInItsSpec(t *testing.T) {
	var p *casePool
	r, err := p.result(context.Background(), poolCase("x", false, false))
	if r != nil || err != nil {
		t.Errorf("without a pool: %v, %v", r, err)
	}
	p.stop()
}

func TestSelectionMatchesAsGinkgoWould(t *testing.T) {
	c := poolCase("kep6406-api/update-is-validated-too@capacity-on", false, false)
	c.Suite = &spec.Suite{Name: "kep6406-api", Description: "The API server validates the field."}
	c.Labels = []string{"suite:kep6406-api", "cell:capacity-on", "provider:t"}
	for _, tc := range []struct {
		focus, labels string
		want          bool
	}{
		{"", "", true},
		{"update-is-validated", "", true},
		{"validates the field", "", true}, // the suite's description, as ginkgo's container text
		{"nothing-like-it", "", false},
		{"", "cell:capacity-on && provider:t", true},
		{"", "!suite:kep6406-api", false},
		{"kep6406", "restart", false},
	} {
		sel, err := newSelection(tc.focus, tc.labels)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.matches(c); got != tc.want {
			t.Errorf("focus %q, labels %q: matches %v, want %v", tc.focus, tc.labels, got, tc.want)
		}
	}
}

func TestPoolTurnsAPanicIntoTheCasesFailure(t *testing.T) {
	c := poolCase("panics", false, false)
	p := startPoolWith([]plan.Case{c}, 1, func(context.Context, plan.Case) *caseResult { panic("a step's bug") })
	defer p.stop()
	r, err := p.result(context.Background(), c)
	if err != nil || r == nil || !strings.Contains(r.failure, "a step's bug") {
		t.Fatalf("a panicking case: %+v, %v; want it failed with the panic's value", r, err)
	}
}
