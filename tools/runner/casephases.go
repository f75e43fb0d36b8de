package runner

import (
	"context"
	"encoding/json"
	"time"

	"github.com/draconform/draconform/steps"
)

// EntryPhases is the report entry of where a case's time went, for `make
// bench`: a CasePhases as JSON. Hidden from the console report.
const EntryPhases = "case phases"

// CasePhases is a case's time by part (steps.Phase*) and the pods it
// wrote, whose scheduling is the scheduler's share of the case.
type CasePhases struct {
	Pods    int                `json:"pods"`
	Seconds map[string]float64 `json:"seconds"`
}

// timedPhase runs fn as one part of the case's time, its inner waits not
// counted again.
func timedPhase(ctx context.Context, part string, fn func(context.Context) error) error {
	began := time.Now()
	err := fn(steps.WithPhases(ctx, nil))
	steps.AddPhase(ctx, part, time.Since(began))
	return err
}

// recordPhases adds the case's phases and pod count to its report.
func recordPhases(r *caseResult, env *steps.Env, ph *steps.Phases) {
	cp := CasePhases{Seconds: ph.Seconds()}
	for _, o := range env.Objects() {
		if o.GVR.Group == "" && o.GVR.Resource == "pods" {
			cp.Pods++
		}
	}
	data, err := json.Marshal(cp)
	if err != nil {
		return
	}
	r.add(EntryPhases, string(data), true)
}

// The parts CasePhases names (steps.Phase*), for readers of reports that
// do not reach the steps.
const (
	PhaseNamespace  = steps.PhaseNamespace
	PhaseWatchSetup = steps.PhaseWatchSetup
	PhaseWaiting    = steps.PhaseWaiting
	PhaseHolds      = steps.PhaseHolds
	PhaseBarriers   = steps.PhaseBarriers
	PhaseCleanup    = steps.PhaseCleanup
)
