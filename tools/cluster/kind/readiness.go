package kind

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/cluster"
)

// controlPlaneAPI is what the provider asks the API server while it
// changes a component; an interface so the change can be tested without a
// cluster.
type controlPlaneAPI interface {
	readyz(ctx context.Context) error
	mirrorPod(ctx context.Context, name string) (*corev1.Pod, error)
	lease(ctx context.Context, name string) (*coordinationv1.Lease, error)
}

type clientAPI struct{ cs kubernetes.Interface }

func (a clientAPI) readyz(ctx context.Context) error {
	_, err := a.cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

func (a clientAPI) mirrorPod(ctx context.Context, name string) (*corev1.Pod, error) {
	return a.cs.CoreV1().Pods(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
}

func (a clientAPI) lease(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	return a.cs.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
}

// mirrorPodName is the kubelet's name for the API copy of a static pod.
func mirrorPodName(c cluster.Component, node string) string { return string(c) + "-" + node }

// servingWith tells whether the mirror pod shows component running with
// exactly want and Ready. The command is compared, not just readiness:
// until the kubelet has replaced the pod, the old one is Ready too.
func servingWith(pod *corev1.Pod, c cluster.Component, want cluster.Gates) (bool, string) {
	var ctr *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == string(c) {
			ctr = &pod.Spec.Containers[i]
		}
	}
	if ctr == nil {
		return false, fmt.Sprintf("mirror pod %s has no container %s", pod.Name, c)
	}
	got, err := gatesInCommand(ctr.Command)
	if err != nil {
		return false, fmt.Sprintf("mirror pod %s: %v", pod.Name, err)
	}
	if !got.Equal(want) {
		return false, fmt.Sprintf("mirror pod %s still runs --feature-gates=%q", pod.Name, got.Flag())
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
			return true, ""
		}
	}
	return false, fmt.Sprintf("mirror pod %s runs the new gates but is not Ready yet", pod.Name)
}

// leaseHolder and leaseRenewed read the leader-election Lease a scheduler
// or controller manager renews every few seconds. A new holder proves a
// restarted component leads again; a renewal proves one that stayed talks
// to the new API server, which is all its Ready status cannot say.
func leaseHolder(l *coordinationv1.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func leaseRenewed(l *coordinationv1.Lease) time.Time {
	if l == nil || l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

// leaseName is the leader-election Lease of a component; the API server
// has none.
func leaseName(c cluster.Component) string {
	if c == cluster.APIServer {
		return ""
	}
	return string(c)
}
