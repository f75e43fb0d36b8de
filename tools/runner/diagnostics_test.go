package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
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

// noLogs is a cluster whose components' logs cannot be read.
type noLogs struct{ cluster.Cluster }

func (noLogs) Name() string { return "fake" }
func (noLogs) TailLog(context.Context, cluster.Component, int) (string, error) {
	return "", cluster.ErrNoLog
}

// A case's diagnostics file begins with why it failed, as the terminal
// says it, and its events carry the time and count events.k8s.io gave them.
func TestDiagnosticsBeginWithTheFailure(t *testing.T) {
	f := stepstest.New(t)
	f.Env.Cluster = noLogs{}
	e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "p1.1", Namespace: f.Env.Namespace}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p1"},
		Reason: "FailedScheduling", Message: "0/1 nodes are available", EventTime: metav1.NewMicroTime(time.Date(2026, 12, 5, 11, 2, 3, 0, time.UTC)),
		Series: &corev1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(time.Date(2026, 12, 5, 11, 4, 5, 0, time.UTC))}}
	if _, err := f.Kube.CoreV1().Events(e.Namespace).Create(context.Background(), e, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := plan.Case{ID: "kep6406-scheduling/implicit-name@capacity-on", Target: "prototype", Informs: "an open reading",
		Suite: &spec.Suite{Name: "kep6406-scheduling"}, Case: &spec.Case{ID: "implicit-name", Contested: "r1"}, Cell: &spec.Cell{Name: "capacity-on"}}
	failure := "step 2 at suites/kep6406-scheduling.yaml:348, pod p1 is scheduled:\nwant node n1\ngot none"
	path, err := writeDiagnostics(context.Background(), f.Env, c, failure, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	head := "case [prototype] kep6406-scheduling/implicit-name@capacity-on\n"
	why := "\n===== why it failed =====\n  (informing: a contested reading of the KEP, never blocking)\n" +
		"  step 2 at suites/kep6406-scheduling.yaml:348, pod p1 is scheduled:\n  want node n1\n  got none\n" +
		"  rerun: draconform run --provider prototype --cells capacity-on --focus 'kep6406-scheduling/implicit-name@capacity-on'\n\n===== pods ====="
	if !strings.HasPrefix(text, head) || !strings.Contains(text, why) {
		t.Errorf("the diagnostics do not begin with %q then %q:\n%s", head, why, text)
	}
	if !strings.Contains(text, "11:04:05 Pod/p1 FailedScheduling: 0/1 nodes are available (x4)\n") {
		t.Errorf("the event lacks its time or count:\n%s", text)
	}
}
