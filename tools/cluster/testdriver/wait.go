package testdriver

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/drivers/envcontract"
	"github.com/draconform/draconform/tools/cluster"
)

// The test driver, by name: drivers/deploy renders these objects.
const (
	Namespace = "draconform-driver"
	DaemonSet = "draconform-driver"
	Driver    = envcontract.DriverName
)

// Wait waits for the DaemonSet to be ready on every node it targets and for
// the driver to have published a ResourceSlice, on node if it is not empty:
// the runner probes for the slices right after a cluster starts, and a case
// needing the driver is skipped if there are none yet.
func Wait(ctx context.Context, cs kubernetes.Interface, node string, timeout time.Duration) error {
	last := "nothing observed yet"
	err := cluster.Poll(ctx, timeout, time.Second, func(ctx context.Context) (bool, error) {
		ds, err := cs.AppsV1().DaemonSets(Namespace).Get(ctx, DaemonSet, metav1.GetOptions{})
		if ctx.Err() != nil {
			return false, nil // the bound passed mid-call; keep what was seen before
		}
		if err != nil {
			last = err.Error()
			return false, nil
		}
		ok, why := DaemonSetReady(ds)
		if !ok {
			last = why
			return false, nil
		}
		sel := "spec.driver=" + Driver
		if node != "" {
			sel += ",spec.nodeName=" + node
		}
		slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(slices.Items) == 0 {
			last = "the DaemonSet is ready but no ResourceSlice of driver " + Driver + " exists"
			if node != "" {
				last += " for node " + node
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the test driver (DaemonSet %s/%s): %w; last: %s%s", Namespace, DaemonSet, err, last, podStates(cs))
	}
	return nil
}

// podStates says where each driver pod is stuck, which is usually why
// the driver is not ready: an image that cannot be had, a sandbox the
// runtime refuses, a crash.
func podStates(cs kubernetes.Interface) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range pods.Items {
		fmt.Fprintf(&b, "\n  pod %s on node %q: %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				fmt.Fprintf(&b, "; %s: %s", c.Type, c.Message)
			}
		}
		for _, st := range p.Status.ContainerStatuses {
			switch {
			case st.State.Waiting != nil:
				fmt.Fprintf(&b, "; container %s waiting: %s %s", st.Name, st.State.Waiting.Reason, st.State.Waiting.Message)
			case st.State.Terminated != nil:
				fmt.Fprintf(&b, "; container %s terminated: %s (exit %d)", st.Name, st.State.Terminated.Reason, st.State.Terminated.ExitCode)
			}
		}
	}
	events, err := cs.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, e := range events.Items {
			if e.Type == corev1.EventTypeWarning {
				fmt.Fprintf(&b, "\n  event %s/%s %s: %s (x%d)", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message, e.Count)
			}
		}
	}
	return b.String()
}

// DaemonSetReady is the rollout check of kubectl rollout status, minus its
// printing: the controller saw the latest spec and every pod it wants is
// updated and ready.
func DaemonSetReady(ds *appsv1.DaemonSet) (bool, string) {
	s := ds.Status
	switch {
	case s.ObservedGeneration < ds.Generation:
		return false, fmt.Sprintf("the controller has not observed generation %d yet", ds.Generation)
	case s.DesiredNumberScheduled == 0:
		return false, "no node is scheduled to run the driver"
	case s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d driver pods updated", s.UpdatedNumberScheduled, s.DesiredNumberScheduled)
	case s.NumberReady < s.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d driver pods ready", s.NumberReady, s.DesiredNumberScheduled)
	}
	return true, ""
}
