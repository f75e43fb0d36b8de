package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/tools/lang/spec"
)

var podGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func toPod(u *unstructured.Unstructured) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		return nil, fmt.Errorf("decoding pod %s: %w", u.GetName(), err)
	}
	return pod, nil
}

// watchPod runs check on every version of one pod of the case.
func watchPod(ctx context.Context, env *Env, local string, within time.Duration, check func(*corev1.Pod) error) error {
	name, err := env.PodName(local)
	if err != nil {
		return err
	}
	ri := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace)
	return watchUntil(ctx, ri, name, within, func(u *unstructured.Unstructured) error {
		pod, err := toPod(u)
		if err != nil {
			return err
		}
		return check(pod)
	})
}

// ExpectScheduled waits until a pod is bound, optionally to a given node.
type ExpectScheduled struct{ Spec *spec.ExpectScheduled }

// Describe implements Step.
func (s *ExpectScheduled) Describe() string { return "pod " + s.Spec.Pod + " is scheduled" }

// Run implements Step.
func (s *ExpectScheduled) Run(ctx context.Context, env *Env) error {
	wantNode := ""
	if s.Spec.Node != "" {
		n, err := env.NameOf(spec.RefOf("Node", s.Spec.Node))
		if err != nil {
			return err
		}
		wantNode = n
	}
	err := watchPod(ctx, env, s.Spec.Pod, s.Spec.Within.Or(defaultScheduleWithin), func(pod *corev1.Pod) error {
		if pod.Spec.NodeName == "" {
			return notYet{"pod " + s.Spec.Pod + " is not bound; " + schedulingState(pod)}
		}
		if wantNode != "" && pod.Spec.NodeName != wantNode {
			return fmt.Errorf("pod %s is bound to %s, want %s", s.Spec.Pod, pod.Spec.NodeName, wantNode)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pod %s must be scheduled: %w", s.Spec.Pod, err)
	}
	return nil
}

// ExpectUnschedulable waits until the scheduler reports a pod unschedulable
// with a message, then optionally checks it stays unbound.
type ExpectUnschedulable struct{ Spec *spec.ExpectUnschedulable }

// Describe implements Step.
func (s *ExpectUnschedulable) Describe() string {
	if s.Spec.Reason != "" {
		return fmt.Sprintf("pod %s is unschedulable for %s (%q)", s.Spec.Pod, s.Spec.Reason, reasonWordings(s.Spec.Reason))
	}
	return fmt.Sprintf("pod %s is unschedulable with %q", s.Spec.Pod, s.Spec.Message)
}

// wanted returns what the scheduler's message must say, and how a failure
// names it.
func (s *ExpectUnschedulable) wanted(env *Env) (func(string) bool, string, error) {
	lacks, err := env.Scope().String(s.Spec.Lacks)
	if err != nil {
		return nil, "", err
	}
	without := func(match func(string) bool, named string) (func(string) bool, string) {
		if lacks == "" {
			return match, named
		}
		return func(m string) bool { return match(m) && !strings.Contains(m, lacks) }, fmt.Sprintf("%s, and not %q", named, lacks)
	}
	if s.Spec.Reason != "" {
		texts := reasonWordings(s.Spec.Reason)
		if len(texts) == 0 {
			return nil, "", fmt.Errorf("pod %s: expectUnschedulable: unknown reason %q (one of %v)", s.Spec.Pod, s.Spec.Reason, ReasonNames())
		}
		named := fmt.Sprintf("any wording of %s %q", s.Spec.Reason, texts)
		if anyWording[s.Spec.Reason] {
			named = fmt.Sprintf("%s: %q, or any words that name no other plugin's reason", s.Spec.Reason, texts)
		}
		match, named := without(func(m string) bool { return reasonMatches(s.Spec.Reason, m) }, named)
		return match, named, nil
	}
	message, err := env.Scope().String(s.Spec.Message)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(message) == "" {
		// Every text contains "": the loader refuses the step, and a
		// variable that came out empty must not slip past it.
		return nil, "", fmt.Errorf("pod %s: expectUnschedulable has no message to look for (%q)", s.Spec.Pod, s.Spec.Message)
	}
	match, named := without(func(m string) bool { return strings.Contains(m, message) }, fmt.Sprintf("%q", message))
	return match, named, nil
}

// Run implements Step.
func (s *ExpectUnschedulable) Run(ctx context.Context, env *Env) error {
	within := s.Spec.Within.Or(defaultScheduleWithin)
	match, named, err := s.wanted(env)
	if err != nil {
		return err
	}
	err = watchPod(ctx, env, s.Spec.Pod, within, func(pod *corev1.Pod) error {
		if pod.Spec.NodeName != "" {
			return fmt.Errorf("pod %s was bound to node %s", s.Spec.Pod, pod.Spec.NodeName)
		}
		cond := podScheduledCondition(pod)
		if cond == nil || cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable {
			return notYet{"pod " + s.Spec.Pod + " is not reported unschedulable; " + schedulingState(pod)}
		}
		if match(cond.Message) {
			return nil
		}
		// The condition carries the latest attempt; an event may name the
		// reason the condition no longer shows.
		msgs, err := schedulingEvents(ctx, env, pod)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if match(m) {
				return nil
			}
		}
		return notYet{fmt.Sprintf("pod %s is unschedulable, but neither its PodScheduled message %q nor its FailedScheduling events %q say %s", s.Spec.Pod, cond.Message, msgs, named)}
	})
	if err != nil {
		return fmt.Errorf("pod %s must be unschedulable: %w", s.Spec.Pod, err)
	}
	if s.Spec.For == 0 {
		return nil
	}
	name, err := env.PodName(s.Spec.Pod)
	if err != nil {
		return err
	}
	ri := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace)
	return holdFor(ctx, ri, name, time.Duration(s.Spec.For), func(u *unstructured.Unstructured) error {
		if node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName"); node != "" {
			return fmt.Errorf("pod %s was bound to node %s although it was unschedulable", s.Spec.Pod, node)
		}
		return notYet{"still unbound"}
	})
}

func podScheduledCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func schedulingState(pod *corev1.Pod) string {
	if c := podScheduledCondition(pod); c != nil {
		return fmt.Sprintf("PodScheduled=%s %s: %s", c.Status, c.Reason, c.Message)
	}
	return "no PodScheduled condition yet"
}

// schedulingEvents lists the messages of the pod's FailedScheduling events.
func schedulingEvents(ctx context.Context, env *Env, pod *corev1.Pod) ([]string, error) {
	sel := fields.Set{"involvedObject.name": pod.Name, "involvedObject.uid": string(pod.UID), "reason": "FailedScheduling"}
	list, err := env.Clients.Kube.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing events of pod %s: %w", pod.Name, err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Message)
	}
	return out, nil
}

// checkExpectUnschedulable requires the message: every pending pod is
// unschedulable for some reason, and the case is about one of them.
func checkExpectUnschedulable(c Checker, st *spec.Step) {
	e := st.ExpectUnschedulable
	c.Need(st.Pos, spec.RefOf("Pod", e.Pod))
	switch {
	case e.Reason != "" && e.Message != "":
		c.Problem(st.Pos, "keep reason: for a meaning any release may word, message: for one wording", "expectUnschedulable takes message: or reason:, not both")
	case e.Reason != "":
		c.Enum(st.Pos, "reason", e.Reason, append([]string{""}, ReasonNames()...))
	case strings.TrimSpace(e.Message) == "":
		c.Problem(st.Pos, `e.g. message: "cannot allocate all claims", the scheduler's words for the reason the case is about, or reason: insufficient-devices, which any known wording of it meets`,
			"expectUnschedulable needs message: without one, a pod pending for any reason at all would pass")
	}
}

func checkExpectScheduled(c Checker, st *spec.Step) {
	c.Need(st.Pos, spec.RefOf("Pod", st.ExpectScheduled.Pod))
	if st.ExpectScheduled.Node != "" {
		c.Need(st.Pos, spec.RefOf("Node", st.ExpectScheduled.Node))
	}
}
