package stepstest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// Warn makes every later write through a NewDynamic client report these
// warnings to the client's handler, as the API server's Warning headers would.
func (f *Fake) Warn(texts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.warnings = append([]string(nil), texts...)
}

func (f *Fake) warn(a k8stesting.Action) (bool, runtime.Object, error) {
	switch a.GetVerb() {
	case "create", "update", "patch":
	default:
		return false, nil, nil
	}
	f.mu.Lock()
	h, ws := f.handler, f.warnings
	f.mu.Unlock()
	if h != nil {
		for _, w := range ws {
			h.HandleWarningHeader(299, "-", w)
		}
	}
	return false, nil, nil
}

// mirror copies writes of core kinds through the dynamic client into the kube
// fake, which on a real cluster is the same API server.
func (f *Fake) mirror(a k8stesting.Action) (bool, runtime.Object, error) {
	tr, ns := f.Kube.Tracker(), a.GetNamespace()
	switch a := a.(type) {
	case k8stesting.CreateActionImpl:
		if u, ok := a.GetObject().(*unstructured.Unstructured); ok && a.GetSubresource() == "" {
			if typed := f.typed(u); typed != nil {
				_ = tr.Create(a.GetResource(), typed, ns)
			}
		}
	case k8stesting.UpdateActionImpl:
		if u, ok := a.GetObject().(*unstructured.Unstructured); ok {
			if typed := f.typed(u); typed != nil {
				_ = tr.Update(a.GetResource(), typed, ns)
			}
		}
	case k8stesting.DeleteActionImpl:
		_ = tr.Delete(a.GetResource(), ns, a.GetName())
	}
	return false, nil, nil
}

// listEvents honours the field selectors the kube fake ignores, so a step
// that asks the API server to filter events is tested as it runs for real.
func (f *Fake) listEvents(a k8stesting.Action) (bool, runtime.Object, error) {
	la := a.(k8stesting.ListAction)
	gvr := corev1.SchemeGroupVersion.WithResource("events")
	obj, err := f.Kube.Tracker().List(gvr, corev1.SchemeGroupVersion.WithKind("Event"), a.GetNamespace())
	if err != nil {
		return true, nil, err
	}
	sel := la.GetListRestrictions().Fields
	if sel == nil {
		sel = fields.Everything()
	}
	list := obj.(*corev1.EventList)
	var kept []corev1.Event
	for _, e := range list.Items {
		if sel.Matches(fields.Set{
			"metadata.name": e.Name, "involvedObject.name": e.InvolvedObject.Name,
			"involvedObject.uid": string(e.InvolvedObject.UID), "involvedObject.kind": e.InvolvedObject.Kind,
			"reason": e.Reason, "type": e.Type,
		}) {
			kept = append(kept, e)
		}
	}
	list.Items = kept
	return true, list, nil
}
