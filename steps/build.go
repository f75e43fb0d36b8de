package steps

import (
	"fmt"

	"github.com/draconform/draconform/tools/spec"
)

// Build turns a YAML step into its Step. This is the one place the union is
// dispatched; build_test.go fails if a spec.Step action has no case here.
func Build(st *spec.Step) (Step, error) {
	switch {
	case st.Create != nil:
		return &Write{Verb: verbCreate, Spec: st.Create}, nil
	case st.Update != nil:
		return &Write{Verb: verbUpdate, Spec: st.Update}, nil
	case st.Apply != nil:
		return &Write{Verb: verbApply, Spec: st.Apply}, nil
	case st.Delete != nil:
		return &Delete{Ref: *st.Delete}, nil
	case st.Restart != nil:
		return &Restart{Spec: st.Restart}, nil
	case st.Sleep != nil:
		return &Sleep{Spec: st.Sleep}, nil
	case st.Assert != nil:
		return &Assert{Spec: st.Assert}, nil
	case st.ExpectScheduled != nil:
		return &ExpectScheduled{Spec: st.ExpectScheduled}, nil
	case st.ExpectUnschedulable != nil:
		return &ExpectUnschedulable{Spec: st.ExpectUnschedulable}, nil
	case st.ExpectClaim != nil:
		return &ExpectClaim{Spec: st.ExpectClaim}, nil
	case st.ExpectNoHotLoop != nil:
		return &ExpectNoHotLoop{Spec: st.ExpectNoHotLoop}, nil
	case st.ExpectRunning != nil:
		return &ExpectRunning{Spec: st.ExpectRunning}, nil
	case st.ExpectNoClaim != nil:
		return &ExpectNoClaim{Spec: st.ExpectNoClaim}, nil
	case st.ExpectSameDevice != nil:
		return &Devices{Pods: st.ExpectSameDevice, Same: true}, nil
	case st.ExpectDistinct != nil:
		return &Devices{Pods: st.ExpectDistinct}, nil
	}
	return nil, fmt.Errorf("%s:%d: step has no action", st.Pos.File, st.Pos.Line)
}
