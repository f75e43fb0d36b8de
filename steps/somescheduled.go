package steps

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/tools/lang/spec"
)

// defaultSomeFor is how long the pods left unbound must stay so.
const defaultSomeFor = 3 * time.Second

// ExpectSomeScheduled waits until count of some pods are bound, whichever
// they are, checks the others stay unbound, and names both for later steps:
// the KEP promises how many pods fit on a device, never which of pods
// created together get there first.
type ExpectSomeScheduled struct{ Spec *spec.ExpectSomeScheduled }

// Describe implements Step.
func (s *ExpectSomeScheduled) Describe() string {
	return fmt.Sprintf("%d of pods %s are bound, the others not", s.Spec.Count, strings.Join(s.Spec.Pods, ", "))
}

// Run implements Step.
func (s *ExpectSomeScheduled) Run(ctx context.Context, env *Env) error {
	within := time.Duration(s.Spec.Within.Or(defaultScheduleWithin))
	deadline := time.Now().Add(within)
	var bound, pending []string
	var last string
	for {
		var err error
		bound, pending, last, err = s.split(ctx, env)
		if err != nil {
			return err
		}
		if len(bound) > s.Spec.Count {
			return fmt.Errorf("%d of pods %s must be bound, but %d are: %s", s.Spec.Count, strings.Join(s.Spec.Pods, ", "), len(bound), last)
		}
		if len(bound) == s.Spec.Count {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of pods %s must be bound within %s, but %d are: %s", s.Spec.Count, strings.Join(s.Spec.Pods, ", "), within, len(bound), last)
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	hold := time.Duration(s.Spec.For.Or(defaultSomeFor))
	until := time.Now().Add(hold)
	for time.Now().Before(until) {
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			return err
		}
		now, _, state, err := s.split(ctx, env)
		if err != nil {
			return err
		}
		if len(now) != len(bound) {
			return fmt.Errorf("only %d of pods %s may be bound, but within %s of that %d are: %s", s.Spec.Count, strings.Join(s.Spec.Pods, ", "), hold, len(now), state)
		}
	}
	for i, local := range bound {
		if err := alias(env, local, s.Spec.Bound, i); err != nil {
			return err
		}
	}
	for i, local := range pending {
		if err := alias(env, local, s.Spec.Pending, i); err != nil {
			return err
		}
	}
	env.Measure(fmt.Sprintf("bound: %s; unbound: %s", strings.Join(bound, ", "), strings.Join(pending, ", ")))
	return nil
}

// split reads every pod once: the bound ones and the others, in the order
// of pods:, with a line saying where each is.
func (s *ExpectSomeScheduled) split(ctx context.Context, env *Env) (bound, pending []string, state string, err error) {
	var where []string
	for _, local := range s.Spec.Pods {
		name, err := env.PodName(local)
		if err != nil {
			return nil, nil, "", err
		}
		u, err := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, "", fmt.Errorf("reading pod %s: %w", local, err)
		}
		pod, err := toPod(u)
		if err != nil {
			return nil, nil, "", err
		}
		if pod.Spec.NodeName != "" {
			bound = append(bound, local)
			where = append(where, local+" bound to "+pod.Spec.NodeName)
			continue
		}
		pending = append(pending, local)
		where = append(where, local+" unbound ("+schedulingState(pod)+")")
	}
	return bound, pending, strings.Join(where, "; "), nil
}

// alias makes the pod local is known by as names[i] too.
func alias(env *Env, local string, names []string, i int) error {
	if i >= len(names) {
		return nil
	}
	c, err := env.Lookup(spec.RefOf("Pod", local))
	if err != nil {
		return err
	}
	env.Remember(spec.RefOf("Pod", names[i]), c)
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// checkExpectSomeScheduled wants known pods, a count below their number,
// and as many names as there are bound and unbound pods.
func checkExpectSomeScheduled(c Checker, st *spec.Step) {
	e := st.ExpectSomeScheduled
	for _, p := range e.Pods {
		c.Need(st.Pos, spec.RefOf("Pod", p))
	}
	if e.Count < 1 || e.Count >= len(e.Pods) {
		c.Problem(st.Pos, "for all of them, or one, use expectScheduled", "expectSomeScheduled: count %d must be at least 1 and fewer than its %d pods", e.Count, len(e.Pods))
	}
	if len(e.Bound) > e.Count || len(e.Pending) > len(e.Pods)-e.Count {
		c.Problem(st.Pos, "", "expectSomeScheduled: %d names for %d bound pods and %d for %d unbound ones", len(e.Bound), e.Count, len(e.Pending), len(e.Pods)-e.Count)
	}
	for _, n := range slices.Concat(e.Bound, e.Pending) {
		c.Define(st.Pos, spec.RefOf("Pod", n))
	}
}
