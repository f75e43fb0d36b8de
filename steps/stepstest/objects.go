package stepstest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Obj parses an object written in YAML. Kind decides the GVR and scope.
func Obj(t testing.TB, src string) *unstructured.Unstructured {
	t.Helper()
	data, err := sigsyaml.YAMLToJSON([]byte(src))
	if err != nil {
		t.Fatalf("stepstest: object %q: %v", src, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatalf("stepstest: object %q: %v", src, err)
	}
	return u
}

// UID is the UID the fakes give an object that has none, so that tests can
// write owner references to it in advance.
func UID(kind, name string) types.UID {
	return types.UID("uid-" + strings.ToLower(kind) + "-" + name)
}

// Created gives an object its GVR and scope from the mapper, and the case
// namespace and a UID when it has none.
func (f *Fake) Created(obj *unstructured.Unstructured) *steps.Created {
	f.T.Helper()
	gvk := obj.GroupVersionKind()
	m, err := f.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		f.T.Fatalf("stepstest: %s: %v", gvk, err)
	}
	namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace
	if namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(Namespace)
	}
	if obj.GetUID() == "" {
		obj.SetUID(UID(gvk.Kind, obj.GetName()))
	}
	return &steps.Created{GVR: m.Resource, Namespaced: namespaced, Object: obj}
}

// Seed stores obj in the fakes and remembers it under kind/local, as if a
// step of the case had created it.
func (f *Fake) Seed(local string, obj *unstructured.Unstructured) *steps.Created {
	f.T.Helper()
	c := f.Add(obj)
	f.Env.Remember(spec.RefOf(obj.GetKind(), local), c)
	return c
}

// SeedYAML is Seed of an object written in YAML.
func (f *Fake) SeedYAML(local, src string) *steps.Created {
	f.T.Helper()
	return f.Seed(local, Obj(f.T, src))
}

// Add stores obj in the fakes without remembering it: something the
// cluster made (a synthesized claim, an event) or another case's object.
func (f *Fake) Add(obj *unstructured.Unstructured) *steps.Created {
	f.T.Helper()
	c := f.Created(obj)
	if err := f.Dyn.Tracker().Create(c.GVR, obj.DeepCopy(), obj.GetNamespace()); err != nil {
		f.T.Fatalf("stepstest: adding %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	if typed := f.typed(obj); typed != nil {
		if err := f.Kube.Tracker().Create(c.GVR, typed, obj.GetNamespace()); err != nil {
			f.T.Fatalf("stepstest: adding %s %s to the kube fake: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	return c
}

// AddYAML is Add of an object written in YAML.
func (f *Fake) AddYAML(src string) *steps.Created {
	f.T.Helper()
	return f.Add(Obj(f.T, src))
}

// Update replaces a stored object in the fakes; watches see the change.
// It reports errors without stopping, so it may run in Later.
func (f *Fake) Update(obj *unstructured.Unstructured) {
	c := f.Created(obj)
	if err := f.Dyn.Tracker().Update(c.GVR, obj.DeepCopy(), obj.GetNamespace()); err != nil {
		f.T.Errorf("stepstest: updating %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	if typed := f.typed(obj); typed != nil {
		if err := f.Kube.Tracker().Update(c.GVR, typed, obj.GetNamespace()); err != nil {
			f.T.Errorf("stepstest: updating %s %s in the kube fake: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

// Remove deletes a stored object from the fakes; watches see it go. It
// reports errors without stopping, so it may run in Later.
func (f *Fake) Remove(c *steps.Created) {
	ns, name := c.Object.GetNamespace(), c.Object.GetName()
	if err := f.Dyn.Tracker().Delete(c.GVR, ns, name); err != nil {
		f.T.Errorf("stepstest: removing %s %s: %v", c.Object.GetKind(), name, err)
	}
	if typed := f.typed(c.Object); typed != nil {
		if err := f.Kube.Tracker().Delete(c.GVR, ns, name); err != nil {
			f.T.Errorf("stepstest: removing %s %s from the kube fake: %v", c.Object.GetKind(), name, err)
		}
	}
}

// Get reads an object back from the dynamic fake.
func (f *Fake) Get(c *steps.Created) *unstructured.Unstructured {
	f.T.Helper()
	ri := f.Dyn.Resource(c.GVR).Namespace(c.Object.GetNamespace())
	u, err := ri.Get(context.Background(), c.Object.GetName(), metav1.GetOptions{})
	if err != nil {
		f.T.Fatalf("stepstest: %v", err)
	}
	return u
}

// Modify reads c's object back, lets fn change it and stores the result;
// it reports errors without stopping, so it may run in Later.
func (f *Fake) Modify(c *steps.Created, fn func(u *unstructured.Unstructured)) {
	ri := f.Dyn.Resource(c.GVR).Namespace(c.Object.GetNamespace())
	u, err := ri.Get(context.Background(), c.Object.GetName(), metav1.GetOptions{})
	if err != nil {
		f.T.Errorf("stepstest: %v", err)
		return
	}
	fn(u)
	f.Update(u)
}

// Later runs fn after d, while a step waits; the test waits for it to end.
func (f *Fake) Later(d time.Duration, fn func()) {
	f.later.Add(1)
	go func() {
		defer f.later.Done()
		time.Sleep(d)
		fn()
	}()
}

// Event records an event about an object of the case in the kube fake.
func (f *Fake) Event(about *unstructured.Unstructured, reason, message string) {
	f.T.Helper()
	e := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s.%d", about.GetName(), time.Now().UnixNano()), Namespace: about.GetNamespace(),
		},
		InvolvedObject: corev1.ObjectReference{
			Kind: about.GetKind(), Name: about.GetName(), Namespace: about.GetNamespace(), UID: about.GetUID(),
		},
		Reason: reason, Message: message, Type: corev1.EventTypeWarning,
	}
	if _, err := f.Kube.CoreV1().Events(e.Namespace).Create(context.Background(), e, metav1.CreateOptions{}); err != nil {
		f.T.Fatalf("stepstest: event: %v", err)
	}
}

// typed converts the core kinds the kube fake serves; others return nil.
func (f *Fake) typed(obj *unstructured.Unstructured) runtime.Object {
	gvk := obj.GroupVersionKind()
	if gvk.Group != "" || !scheme.Scheme.Recognizes(gvk) {
		return nil
	}
	out, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, out); err != nil {
		f.T.Errorf("stepstest: %s %s: %v", gvk.Kind, obj.GetName(), err)
	}
	return out
}
