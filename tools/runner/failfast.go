package runner

import (
	"sync"

	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
)

// failFast is --fail-fast: after the first blocking failure (a failed case
// that is not informing), no case begins; the cases left end as skipped,
// not run, with the failure named. A nil failFast never stops.
type failFast struct {
	mu    sync.Mutex
	first string
}

// stopped is the first blocking failure, "" while none happened.
func (f *failFast) stopped() string {
	if f == nil {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// saw records the end of case c: a blocking failure stops the run.
func (f *failFast) saw(c plan.Case, r *caseResult) {
	if f == nil || r.failure == "" || c.Key().Informing {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == "" {
		f.first = c.Title()
	}
}

// notRun ends r as a case --fail-fast kept from beginning.
func (f *failFast) notRun(r *caseResult) *caseResult {
	r.cause(report.CauseNotRun)
	return r.skipped("not run: --fail-fast stopped the run after the blocking failure of " + f.stopped())
}
