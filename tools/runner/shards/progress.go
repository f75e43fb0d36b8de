package shards

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
)

// progress prints a line when a cell starts and one when it ends, whatever
// the processes it is split into: a person reads cells, and a full run's
// progress stays two lines a cell (issue 41's screen of ~60 lines).
type progress struct {
	w     io.Writer
	mu    sync.Mutex
	cells int // cells in the run
	done  int // cells ended
	cell  map[string]*cellProgress
	// startLineAfter holds a cell's start line back until it has run this
	// long; zero prints it at once.
	startLineAfter time.Duration
}

// cellProgress is one cell's processes so far.
type cellProgress struct {
	parts, started, ended int
	began                 time.Time
	announce              *time.Timer // the start line, until it is printed
	passed, failed, skip  int
	startSeconds          []string
	failures              []string
	errs                  []string
}

func newProgress(w io.Writer, shards []Shard) *progress {
	p := &progress{w: w, cell: map[string]*cellProgress{}}
	for _, sh := range shards {
		c := p.cell[sh.Key()]
		if c == nil {
			c = &cellProgress{}
			p.cell[sh.Key()] = c
			p.cells++
		}
		c.parts++
	}
	return p
}

// start notes that a process of sh's cell starts, and says so for its
// first.
func (p *progress) start(sh Shard, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cell[sh.Key()]
	c.started++
	if c.started > 1 {
		return
	}
	c.began = now
	line := fmt.Sprintf("[start] %s", sh.Key())
	if c.parts > 1 {
		line += fmt.Sprintf(" (in %d processes)", c.parts)
	}
	if p.startLineAfter <= 0 {
		fmt.Fprintln(p.w, line)
		return
	}
	c.announce = time.AfterFunc(p.startLineAfter, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c.ended < c.parts {
			fmt.Fprintln(p.w, line)
		}
	})
}

// end adds a process's result to its cell, and says the cell's counts,
// start-up and failures once its last process ends.
func (p *progress) end(res result, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cell[res.Key()]
	c.ended++
	if res.err != nil {
		c.errs = append(c.errs, fmt.Sprintf("%s FAILED after %.1fs: %v", res.Name(), res.seconds, res.err))
	} else {
		ps, fs, ss := counts(res.out.Report)
		c.passed, c.failed, c.skip = c.passed+ps, c.failed+fs, c.skip+ss
		for _, tm := range res.out.Timings {
			c.startSeconds = append(c.startSeconds, fmt.Sprintf("%.1fs", tm.StartSeconds))
		}
		for _, sp := range res.out.Report.SpecReports {
			if sp.LeafNodeType == types.NodeTypeIt && sp.State.Is(types.SpecStateFailureStates) {
				c.failures = append(c.failures, sp.LeafNodeText)
			}
		}
	}
	if c.ended < c.parts {
		return
	}
	if c.announce != nil {
		c.announce.Stop()
	}
	p.done++
	line := fmt.Sprintf("[%2d/%d] %s: %d passed, %d failed, %d skipped in %.1fs", p.done, p.cells, res.Key(), c.passed, c.failed, c.skip, now.Sub(c.began).Seconds())
	if len(c.startSeconds) > 0 {
		line += " (cluster up in " + strings.Join(c.startSeconds, ", ") + ")"
	}
	for _, f := range c.failures {
		line += "\n        failed: " + f
	}
	for _, e := range c.errs {
		line += "\n        " + e
	}
	fmt.Fprintln(p.w, line)
}

// counts are a report's cases by state.
func counts(r types.Report) (passed, failed, skipped int) {
	for _, sp := range r.SpecReports {
		if sp.LeafNodeType != types.NodeTypeIt {
			continue
		}
		switch {
		case sp.State.Is(types.SpecStatePassed):
			passed++
		case sp.State.Is(types.SpecStateSkipped | types.SpecStatePending):
			skipped++
		default:
			failed++
		}
	}
	return passed, failed, skipped
}

// failsFast is why no process starts after res under --fail-fast: a
// blocking failure (a case failed that is not informing, or a process that
// wrote no report); nil to go on.
func (c *Config) failsFast(res result) error {
	if !c.Options.FailFast {
		return nil
	}
	if res.err != nil {
		return fmt.Errorf("--fail-fast stopped the run after %s failed", res.Name())
	}
	for _, o := range report.Outcomes(res.out.Report) {
		if o.State == report.Failed && !o.Informing {
			return fmt.Errorf("--fail-fast stopped the run after the blocking failure of %s", o.Name())
		}
	}
	return nil
}
