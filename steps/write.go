package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/draconform/draconform/tools/lang/spec"
)

// writeVerb is how a Write step reaches the API server.
type writeVerb string

const (
	verbCreate writeVerb = "create"
	verbUpdate writeVerb = "update"
	verbApply  writeVerb = "apply"
)

// Write creates, updates or server-side applies one object and checks the
// API server's answer: accepted, rejected with a message, or warned.
type Write struct {
	Verb writeVerb
	Spec *spec.Write
}

// Describe implements Step.
func (w *Write) Describe() string {
	return fmt.Sprintf("%s %s", w.Verb, useLabel(&w.Spec.ObjectUse))
}

// Run implements Step.
func (w *Write) Run(ctx context.Context, env *Env) error {
	c, ref, err := Instantiate(env, &w.Spec.ObjectUse)
	if err != nil {
		return err
	}
	if w.Spec.APIVersion != "" {
		// An older client writing the same object: the server sees the
		// fields its version has, and converts.
		gv, err := schema.ParseGroupVersion(w.Spec.APIVersion)
		if err != nil {
			return fmt.Errorf("%s: apiVersion: %w", w.Describe(), err)
		}
		c.Object.SetAPIVersion(w.Spec.APIVersion)
		c.GVR = gv.WithResource(c.GVR.Resource)
	}
	warnings := &warningLog{}
	dyn, err := env.Clients.NewDynamic(warnings)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if w.Verb != verbUpdate {
		// Deleted with the case even if the write is expected to fail: a
		// write that should have been rejected may have gone through.
		if c.Namespaced && c.Object.GetNamespace() == env.Namespace {
			env.DeferInNamespace("delete "+string(ref), deleteFn(env, c))
		} else {
			env.Defer("delete "+string(ref), deleteFn(env, c))
		}
	}
	stored, werr := w.write(ctx, env, dyn, c, ref)
	want, err := expandExpect(env, w.Spec.Expect)
	if err != nil {
		return err
	}
	if err := checkOutcome(want, werr, warnings.list()); err != nil {
		return fmt.Errorf("%s %s: %w", w.Verb, ref, err)
	}
	if werr != nil {
		env.logf("%s %s rejected as expected: %v", w.Verb, ref, werr)
		return nil
	}
	env.logf("%s %s → %s", w.Verb, ref, stored.GetName())
	c.Object = stored
	env.Remember(ref, c)
	if stored.GetKind() == "DeviceClass" {
		env.recordClassVersion(stored)
	}
	if stored.GetKind() == "Node" {
		return readyNode(ctx, env, c.Object)
	}
	return nil
}

func (w *Write) write(ctx context.Context, env *Env, dyn dynamic.Interface, c *Created, ref spec.Ref) (*unstructured.Unstructured, error) {
	ri := c.Resource(dyn)
	status, hasStatus, _ := unstructured.NestedMap(c.Object.Object, "status")
	switch w.Verb {
	case verbCreate:
		obj, err := ri.Create(ctx, c.Object, metav1.CreateOptions{FieldValidation: w.Spec.FieldValidation})
		if err != nil || !hasStatus || c.Object.GetKind() != "Node" {
			return obj, err
		}
		// Status is ignored on create; a Node without a kubelet needs it
		// written. Controllers annotate new Nodes at once, hence the retry.
		name := obj.GetName()
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Object["status"] = status
			updated, err := ri.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			if err == nil {
				obj = updated
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("writing the status of node %s: %w", name, err)
		}
		return obj, nil
	case verbUpdate:
		prev, err := env.Lookup(ref)
		if err != nil {
			return nil, err
		}
		cur, err := prev.Resource(env.Clients.Dyn).Get(ctx, prev.Object.GetName(), metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading %s before update: %w", ref, err)
		}
		c.Object.SetResourceVersion(cur.GetResourceVersion())
		return ri.Update(ctx, c.Object, metav1.UpdateOptions{FieldValidation: w.Spec.FieldValidation})
	case verbApply:
		data, err := json.Marshal(c.Object.Object)
		if err != nil {
			return nil, err
		}
		force := true
		return ri.Patch(ctx, c.Object.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{
			FieldManager: "draconform", Force: &force, FieldValidation: w.Spec.FieldValidation,
		})
	}
	return nil, fmt.Errorf("unknown verb %q", w.Verb)
}

// checkOutcome compares the API server's answer with what the step expects.
func checkOutcome(want *spec.WriteExpect, err error, warnings []string) error {
	if want == nil {
		want = &spec.WriteExpect{}
	}
	if want.Invalid != "" || want.Refused != "" {
		return checkRefusal(want, err, warnings)
	}
	if want.Rejected != "" {
		if err == nil {
			return fmt.Errorf("was accepted, but it must be rejected with an error containing %q (warnings: %s)", want.Rejected, quoteAll(warnings))
		}
		if !strings.Contains(err.Error(), want.Rejected) {
			return fmt.Errorf("was rejected as expected, but the error does not contain %q:\n  %w", want.Rejected, err)
		}
		return nil
	}
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("must be accepted, but the object already exists (a leftover of an earlier run? try draconform cleanup): %w", err)
		}
		return fmt.Errorf("must be accepted, but the API server rejected it:\n  %w", err)
	}
	if want.Warning != "" {
		for _, w := range warnings {
			if strings.Contains(w, want.Warning) {
				return nil
			}
		}
		return fmt.Errorf("was accepted, but with no warning containing %q (warnings: %s)", want.Warning, quoteAll(warnings))
	}
	if want.NoWarning && len(warnings) > 0 {
		return fmt.Errorf("was accepted, but it must not warn; warnings: %s", quoteAll(warnings))
	}
	return nil
}

func quoteAll(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// warningLog collects the warnings of the requests of one write.
type warningLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *warningLog) HandleWarningHeader(code int, agent, text string) {
	if code != 299 || text == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, text)
}

func (l *warningLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

func deleteFn(env *Env, c *Created) func(context.Context) error {
	return func(ctx context.Context) error {
		bg := metav1.DeletePropagationBackground
		err := c.Resource(env.Clients.Dyn).Delete(ctx, c.Object.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
}

// readyNode removes the not-ready taint that admission adds to every new
// Node (with no kubelet, nothing else would ever lift it) and keeps the
// node's Lease renewed for the rest of the case.
func readyNode(ctx context.Context, env *Env, obj *unstructured.Unstructured) error {
	nodes := env.Clients.Kube.CoreV1().Nodes()
	var ready *corev1.Node
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := nodes.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		ready = node
		kept := node.Spec.Taints[:0]
		for _, t := range node.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				kept = append(kept, t)
			}
		}
		if len(kept) == len(node.Spec.Taints) {
			return nil
		}
		node.Spec.Taints = kept
		_, err = nodes.Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("removing the not-ready taint from node %s: %w", obj.GetName(), err)
	}
	return startHeartbeat(env, ready)
}

func useLabel(u *spec.ObjectUse) string {
	if u.Fixture != "" {
		if u.Name != "" {
			return u.Fixture + " as " + u.Name
		}
		return u.Fixture
	}
	return "inline object " + u.Name
}

func expandExpect(env *Env, e *spec.WriteExpect) (*spec.WriteExpect, error) {
	if e == nil {
		return nil, nil
	}
	out := *e
	var err error
	if out.Invalid, err = env.Scope().String(e.Invalid); err != nil {
		return nil, err
	}
	if out.Rejected, err = env.Scope().String(e.Rejected); err != nil {
		return nil, err
	}
	if out.Warning, err = env.Scope().String(e.Warning); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkRefusal compares a refusal with what the step expects by the API
// status alone: its reason, and for Invalid the fields of its causes.
func checkRefusal(want *spec.WriteExpect, err error, warnings []string) error {
	what := "refused as " + want.Refused
	if want.Refused == spec.RefusedAny {
		what = "refused"
	}
	if want.Invalid != "" {
		what = "refused as Invalid at " + want.Invalid
	}
	if err == nil {
		return fmt.Errorf("was accepted, but it must be %s (warnings: %s)", what, quoteAll(warnings))
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("must be %s by the API server, but the write failed without an API status:\n  %w", what, err)
	}
	st := status.Status()
	if want.Refused != "" {
		if want.Refused != spec.RefusedAny && string(st.Reason) != want.Refused {
			return fmt.Errorf("was refused, but with reason %q (HTTP %d), not %s:\n  %w", st.Reason, st.Code, want.Refused, err)
		}
		return nil
	}
	if st.Reason != metav1.StatusReasonInvalid {
		return fmt.Errorf("was refused, but with reason %q (HTTP %d), not Invalid at %s:\n  %w", st.Reason, st.Code, want.Invalid, err)
	}
	var fields []string
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if underField(c.Field, want.Invalid) {
				return nil
			}
			fields = append(fields, c.Field)
		}
	}
	return fmt.Errorf("was refused as Invalid, but at %s, none of them at or under %s:\n  %w", orNoField(fields), want.Invalid, err)
}

// underField says whether a cause's field path is path or one of its
// children: spec.x.requests holds spec.x.requests[k] and spec.x.requests.k.
func underField(field, path string) bool {
	return field == path || strings.HasPrefix(field, path+".") || strings.HasPrefix(field, path+"[")
}

func orNoField(fields []string) string {
	if len(fields) == 0 {
		return "no field"
	}
	return strings.Join(fields, ", ")
}
