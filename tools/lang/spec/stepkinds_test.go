package spec

import (
	"slices"
	"testing"
)

// The kinds are read by field name: a step sets the kinds whose field it
// fills, their YAML keys name them, and a case is serial or alone by the
// kinds of its steps (alone also by its gap's closed steps).
func TestStepKindsReadTheStepFields(t *testing.T) {
	kinds := StepKinds{{Field: "Sleep"}, {Field: "Restart", Serial: true}, {Field: "ExpectNoHotLoop", Alone: true}}
	sleep := Step{Sleep: &Sleep{}}
	if got := kinds.Set(&sleep); len(got) != 1 || got[0].Field != "Sleep" {
		t.Errorf("Set(sleep) = %v", got)
	}
	if got := kinds.Set(&Step{}); len(got) != 0 {
		t.Errorf("Set(empty) = %v", got)
	}
	if got, want := kinds.Keys(), []string{"sleep", "restart", "expectNoHotLoop"}; !slices.Equal(got, want) {
		t.Errorf("Keys() = %v, want %v", got, want)
	}
	restart := Step{Restart: &Restart{}}
	hot := Step{ExpectNoHotLoop: &ExpectNoHotLoop{}}
	for _, c := range []struct {
		name          string
		c             Case
		serial, alone bool
	}{
		{"sleep only", Case{Steps: []Step{sleep}}, false, false},
		{"a restart", Case{Steps: []Step{sleep, restart}}, true, true},
		{"a hot-loop watch", Case{Steps: []Step{hot}}, false, true},
		{"a watch in gap.closed", Case{Steps: []Step{sleep}, Gap: &Gap{Closed: []Step{hot}}}, false, true},
	} {
		if got := kinds.Serial(&c.c); got != c.serial {
			t.Errorf("%s: Serial = %v", c.name, got)
		}
		if got := kinds.Alone(&c.c); got != c.alone {
			t.Errorf("%s: Alone = %v", c.name, got)
		}
	}
}
