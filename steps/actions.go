package steps

import (
	"fmt"
	"time"

	"github.com/draconform/draconform/tools/lang/spec"
)

// Action is one kind of step: its spec.StepKind (the field that holds it,
// how the loader checks it, whether it makes its case run alone), how it is
// built to run, and how long it watches. The loader and the planner read
// the kinds (Kinds) as data, Build and the cost model read Actions, so
// adding a step is its file (type, Build, Check), its field in spec.Step
// and one row below; TestActionsCoverTheUnion fails on a field without a
// row.
type Action struct {
	spec.StepKind
	Build func(st *spec.Step) Step
	// Watches is how long the step watches the cluster for, when that is
	// its point (a window with no hot loop): the planner's cost model
	// counts it, since such a case holds its cluster that long.
	Watches func(st *spec.Step) time.Duration
}

// Checker is what an Action's Check may ask of the loader.
type Checker = spec.Checker

// kind shortens the rows of Actions.
type kind = spec.StepKind

// Actions lists every kind of step, in the order of spec.Step's fields.
func Actions() []Action {
	return []Action{
		{StepKind: kind{Field: "Create", Check: func(c Checker, st *spec.Step) { c.Write(st.Create, false) }},
			Build: func(st *spec.Step) Step { return &Write{Verb: verbCreate, Spec: st.Create} }},
		{StepKind: kind{Field: "Update", Check: func(c Checker, st *spec.Step) { c.Write(st.Update, true) }},
			Build: func(st *spec.Step) Step { return &Write{Verb: verbUpdate, Spec: st.Update} }},
		{StepKind: kind{Field: "Apply", Check: func(c Checker, st *spec.Step) { c.Write(st.Apply, false) }},
			Build: func(st *spec.Step) Step { return &Write{Verb: verbApply, Spec: st.Apply} }},
		{StepKind: kind{Field: "Delete", Check: func(c Checker, st *spec.Step) { c.Need(st.Pos, *st.Delete) }},
			Build: func(st *spec.Step) Step { return &Delete{Ref: *st.Delete} }},
		{StepKind: kind{Field: "Restart", Check: checkRestart, Serial: true},
			Build: func(st *spec.Step) Step { return &Restart{Spec: st.Restart} }},
		{StepKind: kind{Field: "Outage", Check: checkOutage, Serial: true},
			Build: func(st *spec.Step) Step { return &Outage{Spec: st.Outage} }},
		{StepKind: kind{Field: "Sleep", Check: checkSleep},
			Build: func(st *spec.Step) Step { return &Sleep{Spec: st.Sleep} }},
		{StepKind: kind{Field: "SchedulerSeesClasses", Check: checkSchedulerSeesClasses},
			Build: func(st *spec.Step) Step { return &SchedulerSeesClasses{Spec: st.SchedulerSeesClasses} }},
		{StepKind: kind{Field: "Assert", Check: checkAssert},
			Build: func(st *spec.Step) Step { return &Assert{Spec: st.Assert} }},
		{StepKind: kind{Field: "ExpectScheduled", Check: checkExpectScheduled},
			Build: func(st *spec.Step) Step { return &ExpectScheduled{Spec: st.ExpectScheduled} }},
		{StepKind: kind{Field: "ExpectSomeScheduled", Check: checkExpectSomeScheduled},
			Build: func(st *spec.Step) Step { return &ExpectSomeScheduled{Spec: st.ExpectSomeScheduled} }},
		{StepKind: kind{Field: "ExpectUnschedulable", Check: checkExpectUnschedulable},
			Build: func(st *spec.Step) Step { return &ExpectUnschedulable{Spec: st.ExpectUnschedulable} }},
		{StepKind: kind{Field: "ExpectClaim", Check: checkExpectClaim},
			Build: func(st *spec.Step) Step { return &ExpectClaim{Spec: st.ExpectClaim} }},
		{StepKind: kind{Field: "ExpectNoClaim", Check: checkExpectNoClaim},
			Build: func(st *spec.Step) Step { return &ExpectNoClaim{Spec: st.ExpectNoClaim} }},
		{StepKind: kind{Field: "ExpectSameDevice", Check: func(c Checker, st *spec.Step) { checkDevices(c, st.Pos, st.ExpectSameDevice) }},
			Build: func(st *spec.Step) Step { return &Devices{Pods: st.ExpectSameDevice, Same: true} }},
		{StepKind: kind{Field: "ExpectDistinct", Check: func(c Checker, st *spec.Step) { checkDevices(c, st.Pos, st.ExpectDistinct) }},
			Build: func(st *spec.Step) Step { return &Devices{Pods: st.ExpectDistinct} }},
		{StepKind: kind{Field: "ExpectEvent", Check: checkExpectEvent},
			Build: func(st *spec.Step) Step { return &ExpectEvent{Spec: st.ExpectEvent} }},
		{StepKind: kind{Field: "ExpectNoHotLoop", Check: checkExpectNoHotLoop, Alone: true},
			Build:   func(st *spec.Step) Step { return &ExpectNoHotLoop{Spec: st.ExpectNoHotLoop} },
			Watches: func(st *spec.Step) time.Duration { return st.ExpectNoHotLoop.Over.Or(defaultHotLoopWindow) }},
		{StepKind: kind{Field: "ExpectSchedulerMetric", Check: checkExpectSchedulerMetric, Alone: true},
			Build: func(st *spec.Step) Step { return &ExpectSchedulerMetric{Spec: st.ExpectSchedulerMetric} }},
		{StepKind: kind{Field: "ExpectRunning", Check: checkExpectRunning},
			Build: func(st *spec.Step) Step { return &ExpectRunning{Spec: st.ExpectRunning} }},
	}
}

// Kinds are the step kinds as the loader and the planner read them: the
// callers hand them to loader.Load.
func Kinds() spec.StepKinds {
	var out spec.StepKinds
	for _, a := range Actions() {
		out = append(out, a.StepKind)
	}
	return out
}

// SetActions are the actions a step sets: exactly one in a valid step.
func SetActions(st *spec.Step) []Action {
	var out []Action
	for _, a := range Actions() {
		if st.Sets(a.Field) {
			out = append(out, a)
		}
	}
	return out
}

// Build turns a YAML step into its Step.
func Build(st *spec.Step) (Step, error) {
	set := SetActions(st)
	if len(set) != 1 {
		return nil, fmt.Errorf("%s:%d: a step needs exactly one action, found %d", st.Pos.File, st.Pos.Line, len(set))
	}
	return set[0].Build(st), nil
}

// Watched is how long the steps of c watch the cluster for, summed.
func Watched(c *spec.Case) time.Duration {
	var d time.Duration
	for i := range c.Steps {
		for _, a := range SetActions(&c.Steps[i]) {
			if a.Watches != nil {
				d += a.Watches(&c.Steps[i])
			}
		}
	}
	return d
}
