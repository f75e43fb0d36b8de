package localcp

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// createReadyNode makes a Node the scheduler accepts without a kubelet: the
// admission-added not-ready taint removed and allocatable filled in.
func createReadyNode(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating node: %v", err)
	}
	node.Spec.Taints = nil
	if node, err = cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("untainting node: %v", err)
	}
	res := corev1.ResourceList{
		corev1.ResourcePods:   resource.MustParse("110"),
		corev1.ResourceCPU:    resource.MustParse("8"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
	}
	node.Status.Capacity, node.Status.Allocatable = res, res
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "Test",
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
	}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting node status: %v", err)
	}
}

// waitDefaultServiceAccount waits for the controller manager to create the
// service account that admission assigns to every pod.
func waitDefaultServiceAccount(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	began := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("default service account never appeared: %v", err)
	}
	t.Logf("default service account after %s", time.Since(began).Round(time.Millisecond))
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// bindPod creates a pod and watches it until the scheduler sets nodeName.
func bindPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) *corev1.Pod {
	t.Helper()
	pods := cs.CoreV1().Pods("default")
	began := time.Now()
	pod, err := pods.Create(ctx, testPod(name), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	w, err := pods.Watch(wctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", name).String(),
		ResourceVersion: pod.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watching pod %s: %v", name, err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			t.Fatalf("watching pod %s: %v", name, apierrors.FromObject(ev.Object))
		}
		if p, ok := ev.Object.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			t.Logf("pod %s bound to %s in %s", name, p.Spec.NodeName, time.Since(began).Round(time.Millisecond))
			return p
		}
	}
	t.Fatalf("pod %s not bound within a minute", name)
	return nil
}

// checkGarbageCollector deletes an owner and waits for its dependent to go,
// which only happens if the garbage collector runs with working credentials.
func checkGarbageCollector(ctx context.Context, t *testing.T, cs kubernetes.Interface, owner *corev1.Pod) {
	t.Helper()
	cms := cs.CoreV1().ConfigMaps("default")
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: owner.Name, UID: owner.UID}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating dependent: %v", err)
	}
	// No kubelet will confirm termination, so the pod must go at once.
	zero := int64(0)
	if err := cs.CoreV1().Pods("default").Delete(ctx, owner.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting owner: %v", err)
	}
	began := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cms.Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("garbage collector did not delete the dependent of a deleted pod: %v", err)
	}
	t.Logf("garbage collector removed dependent in %s", time.Since(began).Round(time.Millisecond))
}

// checkResourceClaimController gives a pod a claim template and waits for
// the controller to create the claim and record it in the pod status.
func checkResourceClaimController(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	tmpl := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name:    "dev",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "example.com"},
			}}},
		}},
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating claim template: %v", err)
	}
	pod := testPod("with-claim")
	tmplName := tmpl.Name
	pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "dev", ResourceClaimTemplateName: &tmplName}}
	pod.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "dev"}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod with claim: %v", err)
	}
	began := time.Now()
	var claimName string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, s := range p.Status.ResourceClaimStatuses {
			if s.ResourceClaimName != nil {
				claimName = *s.ResourceClaimName
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("resourceclaim controller did not create the pod's claim: %v", err)
	}
	if _, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, claimName, metav1.GetOptions{}); err != nil {
		t.Fatalf("claim %s named in pod status: %v", claimName, err)
	}
	t.Logf("resourceclaim controller created claim %s in %s", claimName, time.Since(began).Round(time.Millisecond))
}
