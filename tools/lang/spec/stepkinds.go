package spec

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// StepKind is one kind of step as the loader and the planner see it: the
// Step field that holds it, how it is checked, and whether it makes its case
// run alone. The step code (package steps) describes its kinds and the
// callers hand them to the loader, so the language reads them as data
// without importing the code that runs steps.
type StepKind struct {
	// Field is the Step field, e.g. "ExpectNoHotLoop".
	Field string
	// Check reports what is wrong with the step, beyond what strict YAML
	// decoding and the variable check of its plain strings already say.
	Check func(c Checker, st *Step)
	// Serial steps change what every case on the cluster sees (a
	// component restart): ginkgo runs their case alone.
	Serial bool
	// Alone steps watch the cluster as a whole (kube-scheduler's attempts
	// at a pod, which any other case's new node, slice or class sets off
	// again): their case changes nothing others see, but needs the
	// cluster to itself.
	Alone bool
}

// Checker is what a StepKind's Check may ask of the loader.
type Checker interface {
	// Case is the case the step belongs to.
	Case() *Case
	// Need reports ref unless the case has made that object by this step.
	Need(pos Pos, ref Ref)
	// Problem reports what is wrong, with a hint of how to fix it.
	Problem(pos Pos, hint, format string, args ...any)
	// Closest is the candidate nearest to got, for a hint.
	Closest(got string, candidates []string) string
	// Enum reports got unless allowed has it.
	Enum(pos Pos, field, got string, allowed []string)
	// Gates reports feature gates draconform does not know.
	Gates(pos Pos, gates map[string]bool)
	// Write checks the object use a create, update or apply writes.
	Write(w *Write, update bool)
	// Vars reports undefined variables in a YAML tree of the step.
	Vars(n *yaml.Node)
	// Define records that the case has ref from this step on (a step that
	// names objects it found, such as the pods it saw bound).
	Define(pos Pos, ref Ref)
}

// StepKinds is every kind of step, in the order of Step's fields.
type StepKinds []StepKind

// Sets says whether st sets the action held in field.
func (st *Step) Sets(field string) bool {
	f := reflect.ValueOf(st).Elem().FieldByName(field)
	return f.IsValid() && !f.IsNil()
}

// Set are the kinds a step sets: exactly one in a valid step.
func (ks StepKinds) Set(st *Step) []StepKind {
	var out []StepKind
	for _, k := range ks {
		if st.Sets(k.Field) {
			out = append(out, k)
		}
	}
	return out
}

// Keys are the YAML keys of every kind, for messages.
func (ks StepKinds) Keys() []string {
	t := reflect.TypeOf(Step{})
	var out []string
	for _, k := range ks {
		if f, ok := t.FieldByName(k.Field); ok {
			out = append(out, f.Tag.Get("yaml"))
		}
	}
	return out
}

// Serial says whether any step of c makes it run alone.
func (ks StepKinds) Serial(c *Case) bool {
	return ks.any(c.Steps, func(k StepKind) bool { return k.Serial })
}

// Alone says whether a case needs the cluster to itself: it restarts a
// component, or watches the cluster as a whole.
func (ks StepKinds) Alone(c *Case) bool {
	alone := func(k StepKind) bool { return k.Serial || k.Alone }
	return ks.any(c.Steps, alone) || (c.Gap != nil && ks.any(c.Gap.Closed, alone))
}

func (ks StepKinds) any(list []Step, pred func(StepKind) bool) bool {
	for i := range list {
		for _, k := range ks.Set(&list[i]) {
			if pred(k) {
				return true
			}
		}
	}
	return false
}
