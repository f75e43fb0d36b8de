package steps

import (
	"context"
	"sync"
	"time"
)

// The parts of a case's time that `make bench` shows beside the scheduler's
// own time for the case's pods. A case's wall time less these is the rest:
// writes, reads and checks of its own.
const (
	// PhaseNamespace is making the case's namespace and waiting for its
	// default ServiceAccount.
	PhaseNamespace = "namespace"
	// PhaseWatchSetup is a watch's initial list and sync, before it can
	// see a change.
	PhaseWatchSetup = "watch set-up"
	// PhaseWaiting is a synced watch waiting for its condition: the
	// cluster's work (the scheduler's among it) and the events' delivery.
	PhaseWaiting = "waiting"
	// PhaseHolds is a hold's time: a state the case requires to last.
	PhaseHolds = "holds"
	// PhaseBarriers is the class barriers, whole.
	PhaseBarriers = "barriers"
	// PhaseCleanup is the case's clean-up.
	PhaseCleanup = "clean-up"
)

// Phases adds up where one case's time goes. Steps of a case may run side
// by side (a hold beside a write), so the parts may sum to more than the
// case's wall time.
type Phases struct {
	mu    sync.Mutex
	spent map[string]time.Duration
}

type phasesKey struct{}

// WithPhases has the steps run under ctx add their times to p; a nil p
// stops the adding (a part measured whole does not count its inner waits
// again).
func WithPhases(ctx context.Context, p *Phases) context.Context {
	return context.WithValue(ctx, phasesKey{}, p)
}

// AddPhase adds d to part of the case ctx runs, if its times are kept.
func AddPhase(ctx context.Context, part string, d time.Duration) {
	p, _ := ctx.Value(phasesKey{}).(*Phases)
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spent == nil {
		p.spent = map[string]time.Duration{}
	}
	p.spent[part] += d
}

// Seconds are the parts' times so far.
func (p *Phases) Seconds() map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]float64, len(p.spent))
	for k, d := range p.spent {
		out[k] = d.Seconds()
	}
	return out
}
