package steps_test

import (
	"testing"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// A hold checks that an object stays as it must; one deleted during the
// hold stayed nothing, however long its last version looked right.
func TestHoldFailsOnDelete(t *testing.T) {
	f := stepstest.New(t)
	p := f.SeedYAML("p1", podYAML("p1", "", unschedulableStatus))
	// Late enough for the hold to have begun: the fake's informers take a
	// moment to sync.
	f.Later(time.Second, func() { f.Remove(p) })
	start := time.Now()
	err := run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{
		Pod: "p1", Message: "cannot allocate", Within: spec.Duration(short), For: spec.Duration(4 * time.Second)}})
	mustFail(t, err, p.Object.GetName()+" was deleted", "into the 4s it had to stay as it was")
	if time.Since(start) > 2*time.Second {
		t.Errorf("the deletion was reported only after %s, want at once", time.Since(start))
	}
}

// Another pod of the namespace going away is none of the hold's business.
func TestHoldIgnoresOtherDeletes(t *testing.T) {
	f := stepstest.New(t)
	f.SeedYAML("p1", podYAML("p1", "", unschedulableStatus))
	other := f.AddYAML(podYAML("other", "", unschedulableStatus))
	f.Later(50*time.Millisecond, func() { f.Remove(other) })
	mustPass(t, run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{
		Pod: "p1", Message: "cannot allocate", Within: spec.Duration(short), For: spec.Duration(short)}}))
}
