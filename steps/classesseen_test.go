package steps_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

const probe = "draconform-seen-1"

// serveProbe plays kube-scheduler once it has seen the probe class: it
// gives the probe pod a synthesized claim asking for class.
func serveProbe(f *stepstest.Fake, class string) {
	f.Later(0, func() {
		pods := f.Dyn.Resource(corev1.SchemeGroupVersion.WithResource("pods")).Namespace(stepstest.Namespace)
		deadline := time.Now().Add(2 * time.Second)
		var pod *unstructured.Unstructured
		for pod == nil && time.Now().Before(deadline) {
			pod, _ = pods.Get(context.Background(), probe, metav1.GetOptions{})
			time.Sleep(10 * time.Millisecond)
		}
		if pod == nil {
			f.T.Errorf("the barrier created no pod %s", probe)
			return
		}
		claim := probe + "-extended-resources-abcde"
		pod.SetUID(stepstest.UID("Pod", probe))
		f.AddYAML(`apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ` + claim + `
  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: ` + probe + `, uid: ` + string(stepstest.UID("Pod", probe)) + `, controller: true}]
spec:
  devices:
    requests:
    - name: container-0-request-0
      exactly: {deviceClassName: ` + class + `, allocationMode: ExactCount, count: 1}
`)
		_ = unstructured.SetNestedField(pod.Object, claim, "status", "extendedResourceClaimStatus", "resourceClaimName")
		f.Update(pod)
	})
}

func barrier(within time.Duration) *steps.SchedulerSeesClasses {
	return &steps.SchedulerSeesClasses{Spec: &spec.SchedulerSeesClasses{Within: spec.Duration(within)}}
}

func TestSchedulerSeesClassesPassesOnceTheProbeClassIsServed(t *testing.T) {
	f := stepstest.New(t, stepstest.FakeNodes())
	serveProbe(f, stepstest.Prefix+"-"+probe)
	if err := barrier(5*time.Second).Run(context.Background(), f.Env); err != nil {
		t.Fatalf("barrier: %v", err)
	}
	// The probe is the case's: its class selects a driver of its own, on
	// every node, and the pod asks for a resource no class of the case names.
	class := f.Get(mustLookup(t, f, "deviceclass/"+probe))
	expr := first(class, "spec", "selectors")["cel"].(map[string]any)["expression"].(string)
	if want := `device.driver == "` + probe + `.` + stepstest.Driver + `"`; expr != want {
		t.Errorf("probe class selects %q, want %q", expr, want)
	}
	slice := f.Get(mustLookup(t, f, "resourceslice/"+probe))
	if all, _, _ := unstructured.NestedBool(slice.Object, "spec", "allNodes"); !all {
		t.Errorf("probe slice is not on every node: %v", slice.Object["spec"])
	}
	if devices, _, _ := unstructured.NestedSlice(slice.Object, "spec", "devices"); len(devices) != 2 {
		t.Errorf("probe slice has %d devices, want 2 (one for the synthesized claim, one for the probe claim)", len(devices))
	}
	// The probe pod also uses a hand-written claim of the probe class, so
	// that the scheduler must have seen the case's claims too.
	claim := f.Get(mustLookup(t, f, "resourceclaim/"+probe))
	if got := first(claim, "spec", "devices", "requests")["exactly"].(map[string]any)["deviceClassName"]; got != class.GetName() {
		t.Errorf("probe claim asks for class %v, want the probe class %s", got, class.GetName())
	}
	pod := f.Get(mustLookup(t, f, "pod/"+probe))
	if got := first(pod, "spec", "resourceClaims")["resourceClaimName"]; got != claim.GetName() {
		t.Errorf("probe pod uses claim %v, want the probe claim %s", got, claim.GetName())
	}
	if got := class.GetLabels()[steps.RunLabel]; got == "" {
		t.Errorf("probe class lacks the run label %s, so clean-up would not find it", steps.RunLabel)
	}
}

func TestSchedulerSeesClassesFailsWhenTheProbeIsNeverServed(t *testing.T) {
	f := stepstest.New(t, stepstest.FakeNodes())
	err := barrier(300*time.Millisecond).Run(context.Background(), f.Env)
	if err == nil || !strings.Contains(err.Error(), "no claim for the probe class") {
		t.Fatalf("want the barrier to fail for a scheduler that never serves the probe, got %v", err)
	}
}

func TestSchedulerSeesClassesFailsWhenTheProbeGetsAnotherClass(t *testing.T) {
	f := stepstest.New(t, stepstest.FakeNodes())
	serveProbe(f, stepstest.Prefix+"-gpu")
	err := barrier(5*time.Second).Run(context.Background(), f.Env)
	if err == nil || !strings.Contains(err.Error(), "not the probe class") {
		t.Fatalf("want the barrier to fail when the probe's claim names another class, got %v", err)
	}
}

func mustLookup(t *testing.T, f *stepstest.Fake, ref string) *steps.Created {
	t.Helper()
	c, err := f.Env.Lookup(spec.Ref(ref))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
