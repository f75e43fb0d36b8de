package runner

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // ginkgo's DSL reads best unqualified.
)

// caseResult is what a case did, recorded apart from ginkgo so that a case
// can run on a goroutine of its own, beside others on the same cluster: the
// ginkgo spec of the case replays it. A case run inside its spec writes its
// log and steps through at once, so --verbose shows them as they happen.
type caseResult struct {
	entries []caseEntry
	// failure or skip ends the case, as ginkgo's Fail and Skip would.
	failure, skip string
	// seconds is how long the case itself took, clean-up included: its
	// spec may have spent less, waiting for a case that ran beforehand.
	seconds float64

	live bool
	mu   sync.Mutex
	log  bytes.Buffer
}

type caseEntry struct {
	name  string
	value any
	never bool
}

func newCaseResult(live bool) *caseResult { return &caseResult{live: live} }

// add records a report entry; never hides it from the console report.
func (r *caseResult) add(name string, value any, never bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, caseEntry{name, value, never})
}

// Write is the case's log: GinkgoWriter when live, else kept for replay.
func (r *caseResult) Write(p []byte) (int, error) {
	if r.live {
		return GinkgoWriter.Write(p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

func (r *caseResult) printf(format string, args ...any) { fmt.Fprintf(r, format, args...) }

// step announces a step, as ginkgo's By does for a live case.
func (r *caseResult) step(text string) {
	if r.live {
		By(text)
		return
	}
	r.printf("STEP: %s\n", text)
}

// fail and skipped end the case; they return r so that a case can end with
// `return r.fail(...)`.
func (r *caseResult) fail(msg string) *caseResult {
	if r.failure == "" {
		r.failure = msg
	}
	return r
}

func (r *caseResult) skipped(msg string) *caseResult {
	r.skip = msg
	return r
}

// replay hands the result to the running ginkgo spec.
func (r *caseResult) replay() {
	r.mu.Lock()
	entries, log := r.entries, r.log.String()
	r.mu.Unlock()
	if log != "" {
		_, _ = io.WriteString(GinkgoWriter, log)
	}
	for _, e := range entries {
		if e.never {
			AddReportEntry(e.name, e.value, ReportEntryVisibilityNever)
		} else {
			AddReportEntry(e.name, e.value)
		}
	}
	switch {
	case r.failure != "":
		Fail(r.failure)
	case r.skip != "":
		Skip(r.skip)
	}
}
