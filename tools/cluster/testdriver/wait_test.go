package testdriver

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDaemonSetReady(t *testing.T) {
	ds := func(gen, observed int64, desired, updated, ready int32) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Generation: gen},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: desired, UpdatedNumberScheduled: updated, NumberReady: ready}}
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		ok   bool
		why  string
	}{
		{"ready", ds(1, 1, 2, 2, 2), true, ""},
		{"not observed", ds(2, 1, 2, 2, 2), false, "not observed generation 2"},
		{"no nodes", ds(1, 1, 0, 0, 0), false, "no node"},
		{"rolling", ds(1, 1, 2, 1, 2), false, "1 of 2 driver pods updated"},
		{"starting", ds(1, 1, 2, 2, 1), false, "1 of 2 driver pods ready"},
	}
	for _, tt := range tests {
		ok, why := DaemonSetReady(tt.ds)
		if ok != tt.ok || !strings.Contains(why, tt.why) {
			t.Errorf("%s: got %t %q", tt.name, ok, why)
		}
	}
}
