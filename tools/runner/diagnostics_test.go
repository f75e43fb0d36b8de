package runner

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Events read as core/v1 whichever API wrote them: the scheduler and the
// kubelet write through events.k8s.io, which fills EventTime and Series
// and leaves LastTimestamp and Count empty.
func TestEventLineReadsEventsOfEitherAPI(t *testing.T) {
	at := func(h, m, s int) time.Time { return time.Date(2026, 12, 5, h, m, s, 0, time.Local) }
	obj := corev1.ObjectReference{Kind: "Pod", Name: "p1"}
	tests := []struct {
		name string
		e    corev1.Event
		want string
	}{
		{"core/v1", corev1.Event{InvolvedObject: obj, Reason: "Pulled", Message: "m", LastTimestamp: metav1.NewTime(at(10, 1, 2)), Count: 3},
			"10:01:02 Pod/p1 Pulled: m (x3)\n"},
		{"events.k8s.io, once", corev1.Event{InvolvedObject: obj, Reason: "FailedScheduling", Message: "m", EventTime: metav1.NewMicroTime(at(11, 2, 3))},
			"11:02:03 Pod/p1 FailedScheduling: m (x1)\n"},
		{"events.k8s.io, a series", corev1.Event{InvolvedObject: obj, Reason: "FailedScheduling", Message: "m", EventTime: metav1.NewMicroTime(at(11, 2, 3)),
			Series: &corev1.EventSeries{Count: 7, LastObservedTime: metav1.NewMicroTime(at(11, 4, 5))}},
			"11:04:05 Pod/p1 FailedScheduling: m (x7)\n"},
		{"no time but its storing", corev1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at(12, 0, 1))}, InvolvedObject: obj, Reason: "R", Message: "m"},
			"12:00:01 Pod/p1 R: m (x1)\n"},
	}
	for _, tt := range tests {
		if got := eventLine(tt.e); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if strings.HasPrefix(eventLine(tt.e), "00:00:00") {
			t.Errorf("%s: no time", tt.name)
		}
	}
}
