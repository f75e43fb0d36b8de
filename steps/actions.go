package steps

import (
	"fmt"
	"reflect"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/lang/spec"
)

// Action is one kind of step: the spec.Step field that holds it, how the
// loader checks it, how it is built to run, and whether it makes its case
// run alone. The loader, the planner and Build all read Actions, so adding
// a step is its file (type, Build, Check), its field in spec.Step and one
// row below; TestActionsCoverTheUnion fails on a field without a row.
type Action struct {
	// Field is the spec.Step field, e.g. "ExpectNoHotLoop".
	Field string
	Build func(st *spec.Step) Step
	// Check reports what is wrong with the step, beyond what strict YAML
	// decoding and the variable check of its plain strings already say.
	Check func(c Checker, st *spec.Step)
	// Serial steps change what every case on the cluster sees (a
	// component restart): ginkgo runs their case alone.
	Serial bool
	// Alone steps watch the cluster as a whole (kube-scheduler's attempts
	// at a pod, which any other case's new node, slice or class sets off
	// again): their case changes nothing others see, but needs the
	// cluster to itself.
	Alone bool
	// Watches is how long the step watches the cluster for, when that is
	// its point (a window with no hot loop): the planner's cost model
	// counts it, since such a case holds its cluster that long.
	Watches func(st *spec.Step) time.Duration
}

// Checker is what an Action's Check may ask of the loader.
type Checker interface {
	// Case is the case the step belongs to.
	Case() *spec.Case
	// Need reports ref unless the case has made that object by this step.
	Need(pos spec.Pos, ref spec.Ref)
	// Problem reports what is wrong, with a hint of how to fix it.
	Problem(pos spec.Pos, hint, format string, args ...any)
	// Closest is the candidate nearest to got, for a hint.
	Closest(got string, candidates []string) string
	// Enum reports got unless allowed has it.
	Enum(pos spec.Pos, field, got string, allowed []string)
	// Gates reports feature gates draconform does not know.
	Gates(pos spec.Pos, gates map[string]bool)
	// Write checks the object use a create, update or apply writes.
	Write(w *spec.Write, update bool)
	// Vars reports undefined variables in a YAML tree of the step.
	Vars(n *yaml.Node)
	// Define records that the case has ref from this step on (a step that
	// names objects it found, such as the pods it saw bound).
	Define(pos spec.Pos, ref spec.Ref)
}

// Actions lists every kind of step, in the order of spec.Step's fields.
func Actions() []Action {
	return []Action{
		{Field: "Create", Build: func(st *spec.Step) Step { return &Write{Verb: verbCreate, Spec: st.Create} },
			Check: func(c Checker, st *spec.Step) { c.Write(st.Create, false) }},
		{Field: "Update", Build: func(st *spec.Step) Step { return &Write{Verb: verbUpdate, Spec: st.Update} },
			Check: func(c Checker, st *spec.Step) { c.Write(st.Update, true) }},
		{Field: "Apply", Build: func(st *spec.Step) Step { return &Write{Verb: verbApply, Spec: st.Apply} },
			Check: func(c Checker, st *spec.Step) { c.Write(st.Apply, false) }},
		{Field: "Delete", Build: func(st *spec.Step) Step { return &Delete{Ref: *st.Delete} },
			Check: func(c Checker, st *spec.Step) { c.Need(st.Pos, *st.Delete) }},
		{Field: "Restart", Build: func(st *spec.Step) Step { return &Restart{Spec: st.Restart} }, Check: checkRestart, Serial: true},
		{Field: "Outage", Build: func(st *spec.Step) Step { return &Outage{Spec: st.Outage} }, Check: checkOutage, Serial: true},
		{Field: "Sleep", Build: func(st *spec.Step) Step { return &Sleep{Spec: st.Sleep} }, Check: checkSleep},
		{Field: "SchedulerSeesClasses", Build: func(st *spec.Step) Step { return &SchedulerSeesClasses{Spec: st.SchedulerSeesClasses} },
			Check: checkSchedulerSeesClasses},
		{Field: "Assert", Build: func(st *spec.Step) Step { return &Assert{Spec: st.Assert} }, Check: checkAssert},
		{Field: "ExpectScheduled", Build: func(st *spec.Step) Step { return &ExpectScheduled{Spec: st.ExpectScheduled} }, Check: checkExpectScheduled},
		{Field: "ExpectSomeScheduled", Build: func(st *spec.Step) Step { return &ExpectSomeScheduled{Spec: st.ExpectSomeScheduled} },
			Check: checkExpectSomeScheduled},
		{Field: "ExpectUnschedulable", Build: func(st *spec.Step) Step { return &ExpectUnschedulable{Spec: st.ExpectUnschedulable} },
			Check: checkExpectUnschedulable},
		{Field: "ExpectClaim", Build: func(st *spec.Step) Step { return &ExpectClaim{Spec: st.ExpectClaim} }, Check: checkExpectClaim},
		{Field: "ExpectNoClaim", Build: func(st *spec.Step) Step { return &ExpectNoClaim{Spec: st.ExpectNoClaim} }, Check: checkExpectNoClaim},
		{Field: "ExpectSameDevice", Build: func(st *spec.Step) Step { return &Devices{Pods: st.ExpectSameDevice, Same: true} },
			Check: func(c Checker, st *spec.Step) { checkDevices(c, st.Pos, st.ExpectSameDevice) }},
		{Field: "ExpectDistinct", Build: func(st *spec.Step) Step { return &Devices{Pods: st.ExpectDistinct} },
			Check: func(c Checker, st *spec.Step) { checkDevices(c, st.Pos, st.ExpectDistinct) }},
		{Field: "ExpectEvent", Build: func(st *spec.Step) Step { return &ExpectEvent{Spec: st.ExpectEvent} }, Check: checkExpectEvent},
		{Field: "ExpectNoHotLoop", Build: func(st *spec.Step) Step { return &ExpectNoHotLoop{Spec: st.ExpectNoHotLoop} }, Check: checkExpectNoHotLoop, Alone: true,
			Watches: func(st *spec.Step) time.Duration { return st.ExpectNoHotLoop.Over.Or(defaultHotLoopWindow) }},
		{Field: "ExpectSchedulerMetric", Build: func(st *spec.Step) Step { return &ExpectSchedulerMetric{Spec: st.ExpectSchedulerMetric} },
			Check: checkExpectSchedulerMetric, Alone: true},
		{Field: "ExpectRunning", Build: func(st *spec.Step) Step { return &ExpectRunning{Spec: st.ExpectRunning} }, Check: checkExpectRunning},
	}
}

// SetActions are the actions a step sets: exactly one in a valid step.
func SetActions(st *spec.Step) []Action {
	v := reflect.ValueOf(st).Elem()
	var out []Action
	for _, a := range Actions() {
		if f := v.FieldByName(a.Field); f.IsValid() && !f.IsNil() {
			out = append(out, a)
		}
	}
	return out
}

// ActionKeys are the YAML keys of every action, for messages.
func ActionKeys() []string {
	t := reflect.TypeOf(spec.Step{})
	var out []string
	for _, a := range Actions() {
		if f, ok := t.FieldByName(a.Field); ok {
			out = append(out, f.Tag.Get("yaml"))
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

// Serial says whether any step of c makes it run alone.
func Serial(c *spec.Case) bool {
	return anyAction(c.Steps, func(a Action) bool { return a.Serial })
}

// Alone says whether a case needs the cluster to itself: it restarts a
// component, or watches the cluster as a whole.
func Alone(c *spec.Case) bool {
	alone := func(a Action) bool { return a.Serial || a.Alone }
	return anyAction(c.Steps, alone) || (c.Gap != nil && anyAction(c.Gap.Closed, alone))
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

func anyAction(list []spec.Step, pred func(Action) bool) bool {
	for i := range list {
		for _, a := range SetActions(&list[i]) {
			if pred(a) {
				return true
			}
		}
	}
	return false
}
