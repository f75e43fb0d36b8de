package bench

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// PodCases sums the cases of a run that restart nothing and wrote pods:
// their wall time, their pods and their time by part.
type PodCases struct {
	Cases   int                `json:"cases"`
	Pods    int                `json:"pods"`
	Seconds float64            `json:"seconds"`
	Parts   map[string]float64 `json:"parts,omitempty"`
}

// add counts sp if it recorded its phases and wrote pods.
func (pc *PodCases) add(sp types.SpecReport) {
	ph, ok := phasesOf(sp)
	if !ok || ph.Pods == 0 {
		return
	}
	pc.Cases++
	pc.Pods += ph.Pods
	pc.Seconds += report.CaseSeconds(sp)
	if pc.Parts == nil {
		pc.Parts = map[string]float64{}
	}
	for k, v := range ph.Seconds {
		pc.Parts[k] += v
	}
}

// phasesOf reads the case's runner.EntryPhases.
func phasesOf(sp types.SpecReport) (runner.CasePhases, bool) {
	var ph runner.CasePhases
	for _, e := range sp.ReportEntries {
		if e.Name == runner.EntryPhases {
			return ph, json.Unmarshal([]byte(e.StringRepresentation()), &ph) == nil
		}
	}
	return ph, false
}

// caseParts are the parts of a case's time the case ratio shows, in order.
var caseParts = []string{runner.PhaseNamespace, runner.PhaseWatchSetup, runner.PhaseWaiting, runner.PhaseBarriers, runner.PhaseCleanup}

// partRest names what is left of a time once its parts are taken out.
const partRest = "the rest"

// partHolds names the holds among the parts: beside the ratio, not in it.
const partHolds = runner.PhaseHolds + leftOut

// leftOut marks a part shown beside a ratio but not counted in it.
const leftOut = " (left out of the ratio)"

// caseGoal is the case ratio aimed for (issue 42).
const caseGoal = 2

// CaseRatio is, per run, a case's mean wall time (less its holds: a state
// the case requires to last is its spec, not overhead) against the
// scheduler's own time for the case's pods (the run's mean queue-to-bound
// time per pod, times the case's mean pods), over the runs' cases that
// restart nothing and wrote pods. Nil where no run has such cases or a
// scheduler figure.
func CaseRatio(runs []Run) *SpeedRatio {
	r := &SpeedRatio{Goal: caseGoal, Note: "a case that restarts nothing and writes pods, its holds left out, against kube-scheduler's queue-to-bound time for its pods (the run's mean per pod, from pod_scheduling_sli_duration_seconds, times the case's pods); both means over the run's cases"}
	var perCase []map[string]float64
	for _, run := range runs {
		pc := run.PodCases
		if pc.Cases == 0 || run.SchedulerPerPod <= 0 {
			continue
		}
		n := float64(pc.Cases)
		wall := (pc.Seconds - pc.Parts[runner.PhaseHolds]) / n
		sched := float64(pc.Pods) / n * run.SchedulerPerPod
		r.Samples = append(r.Samples, Pair{Num: wall, Den: sched})
		parts := map[string]float64{partHolds: pc.Parts[runner.PhaseHolds] / n}
		rest := wall
		for _, k := range caseParts {
			parts[k] = pc.Parts[k] / n
			rest -= parts[k]
		}
		parts[partRest] = max(rest, 0)
		perCase = append(perCase, parts)
	}
	if len(r.Samples) == 0 {
		return nil
	}
	r.Parts = medianParts(append(append([]string{}, caseParts...), partRest, partHolds), perCase)
	return r
}
