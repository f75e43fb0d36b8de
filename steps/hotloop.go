package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/spec"
)

const defaultHotLoopWindow = 20 * time.Second

// ExpectNoHotLoop watches an unschedulable pod over a window: it must stay
// unbound, and where the provider shows kube-scheduler's run, the scheduler
// must keep that run, log no panic, and log at most MaxAttempts failed
// attempts for the pod. The count is reported as a measurement either way.
type ExpectNoHotLoop struct{ Spec *spec.ExpectNoHotLoop }

// Describe implements Step.
func (s *ExpectNoHotLoop) Describe() string {
	return fmt.Sprintf("over %s, pod %s stays pending and kube-scheduler neither panics, restarts nor tries it more than %d times",
		s.Spec.Over.Or(defaultHotLoopWindow), s.Spec.Pod, s.Spec.MaxAttempts)
}

// Run implements Step.
func (s *ExpectNoHotLoop) Run(ctx context.Context, env *Env) error {
	window := s.Spec.Over.Or(defaultHotLoopWindow)
	var pod *corev1.Pod
	// The window starts once the scheduler has given up on the pod at
	// least once, so that its log already shows an attempt.
	err := watchPod(ctx, env, s.Spec.Pod, defaultScheduleWithin, func(p *corev1.Pod) error {
		if p.Spec.NodeName != "" {
			return fmt.Errorf("pod %s is bound to %s; it must stay pending", s.Spec.Pod, p.Spec.NodeName)
		}
		if c := podScheduledCondition(p); c == nil || c.Status != corev1.ConditionFalse {
			return notYet{"pod " + s.Spec.Pod + " has not been found unschedulable yet; " + schedulingState(p)}
		}
		pod = p
		return nil
	})
	if err != nil {
		return err
	}
	inspector, _ := env.Cluster.(cluster.RunInspector)
	var before cluster.Run
	if inspector != nil {
		if before, err = inspector.CurrentRun(ctx, cluster.Scheduler); err != nil {
			return fmt.Errorf("reading kube-scheduler's run: %w", err)
		}
	}
	began := time.Now()
	ri := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace)
	err = holdFor(ctx, ri, pod.Name, window, func(u *unstructured.Unstructured) error {
		if node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName"); node != "" {
			return fmt.Errorf("pod %s got bound to %s %s into the window; it must stay pending", s.Spec.Pod, node, time.Since(began).Round(time.Second))
		}
		return notYet{"pending"}
	})
	if err != nil {
		return err
	}
	if inspector == nil {
		env.Measure(fmt.Sprintf("scheduling attempts for pod %s over %s: not measured (this provider does not show kube-scheduler's log)", s.Spec.Pod, window))
		return nil
	}
	after, err := inspector.CurrentRun(ctx, cluster.Scheduler)
	if err != nil {
		return fmt.Errorf("reading kube-scheduler's run: %w", err)
	}
	return judgeSchedulerRun(env, before, after, pod.Namespace+"/"+pod.Name, s.Spec.Pod, window, s.Spec.MaxAttempts)
}

// judgeSchedulerRun compares kube-scheduler's run before and after the
// window.
func judgeSchedulerRun(env *Env, before, after cluster.Run, key, local string, window time.Duration, max int) error {
	if after.ID != before.ID || !after.Running {
		return fmt.Errorf("kube-scheduler did not keep its run over the window: run %s (running) became %s (running=%v); an unschedulable pod must not crash or restart it", before.ID, after.ID, after.Running)
	}
	if line := panicLine(after.Log); line != "" {
		return fmt.Errorf("kube-scheduler logged a panic while pod %s was pending:\n%s", local, line)
	}
	atStart, atEnd := attempts(before.Log, key), attempts(after.Log, key)
	if atStart == 0 {
		env.Measure(fmt.Sprintf("scheduling attempts for pod %s over %s: not measured (kube-scheduler does not log them; it does at --v=2)", local, window))
		return nil
	}
	n := atEnd - atStart
	env.Measure(fmt.Sprintf("scheduling attempts for pod %s over %s: %d (%d before the window)", local, window, n, atStart))
	if n > max {
		return fmt.Errorf("kube-scheduler tried pod %s %d times in %s, more than the %d backoff allows: it retries an unschedulable pod in a hot loop", local, n, window, max)
	}
	return nil
}

// attempts counts kube-scheduler's log lines for failed attempts to
// schedule the pod namespace/name (schedule_one.go, at --v=2). Its
// FailedScheduling events cannot count them: client-go's event broadcaster
// folds repeats into a series whose count it writes back only every 30
// minutes (tools/events refreshTime), so the API shows 1 or 2 however hot
// the loop.
func attempts(log, key string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Unable to schedule pod") && strings.Contains(l, `pod="`+key+`"`) {
			n++
		}
	}
	return n
}

// panicLine is the first line of a panic in a log: a recovered one
// (runtime.HandleCrash logs "Observed a panic") or a fatal one.
func panicLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Observed a panic") || strings.HasPrefix(l, "panic: ") {
			return l
		}
	}
	return ""
}

// maxHotLoopWindow bounds expectNoHotLoop's window, which every run waits out.
const maxHotLoopWindow = 2 * time.Minute

func checkExpectNoHotLoop(c Checker, st *spec.Step) {
	c.Need(st.Pos, spec.RefOf("Pod", st.ExpectNoHotLoop.Pod))
	if time.Duration(st.ExpectNoHotLoop.Over) > maxHotLoopWindow {
		c.Problem(st.Pos, "e.g. over: 20s", "expectNoHotLoop: over: must be at most %s", maxHotLoopWindow)
	}
	if st.ExpectNoHotLoop.MaxAttempts < 1 {
		c.Problem(st.Pos, "e.g. maxAttempts: 10", "expectNoHotLoop needs maxAttempts: of at least 1")
	}
}
