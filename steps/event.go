package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/draconform/draconform/tools/lang/spec"
)

// ExpectEvent waits until an object of the case has an event with a reason
// (and a message), and bounds how often it was recorded. Counts are what
// the recorder wrote back: client-go folds repeats into a series it updates
// rarely, so a bound holds for what the API shows, not for every attempt.
type ExpectEvent struct{ Spec *spec.ExpectEvent }

// Describe implements Step.
func (s *ExpectEvent) Describe() string {
	d := fmt.Sprintf("%s has a %s event", s.Spec.Ref, s.Spec.Reason)
	if s.Spec.Message != "" {
		d += fmt.Sprintf(" saying %q", s.Spec.Message)
	}
	if s.Spec.AtMost > 0 {
		d += fmt.Sprintf(", recorded at most %d times", s.Spec.AtMost)
	}
	return d
}

// Run implements Step.
func (s *ExpectEvent) Run(ctx context.Context, env *Env) error {
	name, err := env.NameOf(s.Spec.Ref)
	if err != nil {
		return err
	}
	message, err := env.Scope().String(s.Spec.Message)
	if err != nil {
		return err
	}
	sel := fields.Set{"involvedObject.name": name, "reason": s.Spec.Reason}.String()
	var seen []string
	count := 0
	defer func(began time.Time) { AddPhase(ctx, PhaseWaiting, time.Since(began)) }(time.Now())
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, s.Spec.Within.Or(defaultScheduleWithin), true, func(ctx context.Context) (bool, error) {
		list, err := env.Clients.Kube.CoreV1().Events(env.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return false, fmt.Errorf("listing events of %s: %w", s.Spec.Ref, err)
		}
		seen, count = matching(list.Items, message)
		return count > 0, nil
	})
	if err != nil {
		return fmt.Errorf("no %s event of %s contains %q within %s (its %s events: %q): %w",
			s.Spec.Reason, s.Spec.Ref, message, s.Spec.Within.Or(defaultScheduleWithin), s.Spec.Reason, seen, err)
	}
	if s.Spec.AtMost > 0 && count > s.Spec.AtMost {
		return fmt.Errorf("%s of %s was recorded %d times, more than %d", s.Spec.Reason, s.Spec.Ref, count, s.Spec.AtMost)
	}
	return nil
}

// matching lists the messages of events and sums how often those that
// contain message were recorded.
func matching(events []corev1.Event, message string) (messages []string, count int) {
	for _, e := range events {
		messages = append(messages, e.Message)
		if !strings.Contains(e.Message, message) {
			continue
		}
		switch {
		case e.Series != nil:
			count += int(e.Series.Count)
		case e.Count > 0:
			count += int(e.Count)
		default:
			count++
		}
	}
	return messages, count
}

func checkExpectEvent(c Checker, st *spec.Step) {
	c.Need(st.Pos, st.ExpectEvent.Ref)
	if st.ExpectEvent.Reason == "" {
		c.Problem(st.Pos, "e.g. reason: FailedScheduling", "expectEvent needs reason:")
	}
	if st.ExpectEvent.AtMost < 0 {
		c.Problem(st.Pos, "", "expectEvent: atMost: must not be negative")
	}
	if st.ExpectEvent.Reason == "FailedScheduling" && st.ExpectEvent.Message != "" && !seenBeforeCreate(c.Case(), st.ExpectEvent.Ref) {
		c.Problem(st.Pos, "add - schedulerSeesClasses: {} before the pod's create",
			"expectEvent: kube-scheduler keeps the message of a pod's first FailedScheduling (its event series is keyed without it), so the case must make sure the scheduler has seen its objects before %s is created", st.ExpectEvent.Ref)
	}
}

// seenBeforeCreate reports whether a schedulerSeesClasses barrier comes
// before the step that creates ref's object.
func seenBeforeCreate(c *spec.Case, ref spec.Ref) bool {
	_, name, _ := ref.Split()
	barrier := false
	for i := range c.Steps {
		st := &c.Steps[i]
		if st.SchedulerSeesClasses != nil {
			barrier = true
		}
		if st.Create != nil && st.Create.Name == name {
			return barrier
		}
	}
	return false
}
