package steps_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Every action field of spec.Step must reach its own Step type through
// Build: a field the registry forgets would make the loader accept a step
// that then fails at run time, or worse, is dispatched as another action.
// Two fields may build the same type only when they hold the same spec
// type (create, update and apply; the two device relations).
func TestBuildCoversEveryAction(t *testing.T) {
	st := reflect.TypeOf(spec.Step{})
	descriptions := map[string]string{}
	builtBy := map[reflect.Type]reflect.StructField{}
	for i := 0; i < st.NumField(); i++ {
		fd := st.Field(i)
		var zero reflect.Value
		switch fd.Type.Kind() {
		case reflect.Pointer:
			zero = reflect.New(fd.Type.Elem())
		case reflect.Slice:
			zero = reflect.MakeSlice(fd.Type, 0, 0)
		default:
			continue // Name, Pos: not actions
		}
		var s spec.Step
		reflect.ValueOf(&s).Elem().Field(i).Set(zero)
		got, err := steps.Build(&s)
		if err != nil {
			t.Errorf("spec.Step.%s: Build: %v (add a row to steps.Actions)", fd.Name, err)
			continue
		}
		gt := reflect.TypeOf(got)
		if other, dup := builtBy[gt]; dup && other.Type != fd.Type {
			t.Errorf("spec.Step.%s builds a %v, as %s does, although they hold different specs", fd.Name, gt, other.Name)
		}
		builtBy[gt] = fd
		descriptions[fd.Name] = got.Describe()
	}
	// Each action builds its own step, not a neighbour's.
	for _, c := range []struct{ field, prefix string }{
		{"Create", "create "}, {"Update", "update "}, {"Apply", "apply "}, {"Delete", "delete "},
		{"Restart", "restart "}, {"Assert", "assert "}, {"ExpectScheduled", "pod  is scheduled"},
		{"ExpectUnschedulable", "pod  is unschedulable"}, {"ExpectClaim", "claim "}, {"ExpectNoClaim", "no claim exists"},
		{"ExpectSameDevice", "pods  share one device"}, {"ExpectDistinct", "pods  use distinct devices"},
	} {
		if d := descriptions[c.field]; !strings.HasPrefix(d, c.prefix) {
			t.Errorf("spec.Step.%s builds a step described as %q, want it to start with %q", c.field, d, c.prefix)
		}
	}
}

func TestBuildKeepsTheSpec(t *testing.T) {
	s := decode[spec.Step](t, "expectSameDevice: [p1, p2]")
	got, err := steps.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := got.(*steps.Devices); !ok || !d.Same || len(d.Pods) != 2 {
		t.Errorf("expectSameDevice built %#v", got)
	}
	s = decode[spec.Step](t, "expectDistinctDevices: [p1, p2]")
	if got, _ = steps.Build(s); got.(*steps.Devices).Same {
		t.Errorf("expectDistinctDevices built a Same check")
	}
	s = decode[spec.Step](t, "delete: pod/p1")
	if got, _ = steps.Build(s); got.(*steps.Delete).Ref != "pod/p1" {
		t.Errorf("delete built %#v", got)
	}
}

func TestBuildNoAction(t *testing.T) {
	_, err := steps.Build(&spec.Step{Name: "empty", Pos: spec.Pos{File: "suites/x.yaml", Line: 7}})
	mustFail(t, err, "suites/x.yaml:7", "a step needs exactly one action, found 0")
}

// The registry has one row per union field, each with a Build and a Check,
// and only a restart or an outage, which every case on the cluster sees,
// makes its case serial.
func TestActionsCoverTheUnion(t *testing.T) {
	st := reflect.TypeOf(spec.Step{})
	rows := map[string]int{}
	for _, a := range steps.Actions() {
		rows[a.Field]++
		if _, ok := st.FieldByName(a.Field); !ok {
			t.Errorf("action %s names no spec.Step field", a.Field)
		}
		if a.Build == nil || a.Check == nil {
			t.Errorf("action %s lacks Build or Check", a.Field)
		}
		if a.Serial != (a.Field == "Restart" || a.Field == "Outage") {
			t.Errorf("action %s: Serial = %v", a.Field, a.Serial)
		}
	}
	for i := 0; i < st.NumField(); i++ {
		fd := st.Field(i)
		if k := fd.Type.Kind(); k != reflect.Pointer && k != reflect.Slice {
			continue
		}
		if rows[fd.Name] != 1 {
			t.Errorf("spec.Step.%s has %d rows in steps.Actions, want 1", fd.Name, rows[fd.Name])
		}
	}
}
