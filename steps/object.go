package steps

import (
	"encoding/json"
	"fmt"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/draconform/draconform/tools/lang/spec"
)

// Instantiate renders an object use into the object to write: the fixture
// (or inline object) with variables substituted, the patch merged, and the
// run's labels, namespace, taint and toleration added.
func Instantiate(env *Env, u *spec.ObjectUse) (*Created, spec.Ref, error) {
	tmpl, f := u.Template(env.Fixtures)
	if tmpl == nil {
		return nil, "", fmt.Errorf("unknown fixture %q", u.Fixture)
	}
	local := u.LocalName(env.Fixtures)
	scope, err := useScope(env, u, f, local)
	if err != nil {
		return nil, "", err
	}
	node, err := scope.ExpandNode(tmpl)
	if err != nil {
		return nil, "", fmt.Errorf("rendering %s: %w", describeUse(u), err)
	}
	var obj map[string]any
	if err := node.Decode(&obj); err != nil {
		return nil, "", fmt.Errorf("rendering %s: %w", describeUse(u), err)
	}
	if spec.IsSet(u.Patch) {
		pn, err := patchScope(env, local).ExpandNode(&u.Patch)
		if err != nil {
			return nil, "", fmt.Errorf("patch of %s: %w", describeUse(u), err)
		}
		var patch map[string]any
		if err := pn.Decode(&patch); err != nil {
			return nil, "", fmt.Errorf("patch of %s: %w", describeUse(u), err)
		}
		if obj, err = mergePatch(obj, patch); err != nil {
			return nil, "", fmt.Errorf("patch of %s: %w", describeUse(u), err)
		}
	}
	un := &unstructured.Unstructured{Object: normalise(obj).(map[string]any)}
	gvk := un.GroupVersionKind()
	mapping, err := env.Clients.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, "", fmt.Errorf("%s: the cluster does not serve %s: %w", describeUse(u), gvk, err)
	}
	namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
	if namespaced {
		un.SetNamespace(env.Namespace)
	}
	if err := checkOwnership(un, namespaced, env.Prefix()); err != nil {
		return nil, "", fmt.Errorf("%s: %w", describeUse(u), err)
	}
	labels := un.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[RunLabel] = env.RunID
	labels[CaseLabel] = env.CaseHash
	un.SetLabels(labels)
	guard(un, env.RunID, env.pinPods)
	return &Created{GVR: mapping.Resource, Namespaced: namespaced, Object: un}, spec.RefOf(gvk.Kind, local), nil
}

// useScope layers the variables a use sees. A fixture sees only its declared
// params (defaults, then same-named suite and case vars, then the use's vars),
// so it stays self-contained; an inline object sees every suite and case var.
// Values written in the suite or case are expanded in the case's scope.
func useScope(env *Env, u *spec.ObjectUse, f *spec.Fixture, local string) (*spec.Scope, error) {
	overrides := spec.Vars{}
	if f != nil {
		for k := range f.Params {
			if v, ok := env.Scope().Lookup(k); ok && env.vars.declared[k] {
				overrides[k] = *v
			}
		}
	}
	for k, v := range u.Vars {
		v := v
		e, err := env.Scope().ExpandNode(&v)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", k, err)
		}
		overrides[k] = *e
	}
	overrides["name"] = *spec.ScalarNode(local)
	base := env.Scope()
	if f != nil {
		var err error
		if base, err = env.vars.builtins.With(f.Params); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", f.Name, err)
		}
	}
	return base.With(overrides)
}

// guard keeps draconform's Nodes and pods to themselves on a shared cluster:
// its Nodes are tainted so that only its pods tolerate them, and where the
// case has Nodes of its own (pin), its pods select the run's label, which
// every object it creates carries, so none lands on a Node of the cluster.
func guard(un *unstructured.Unstructured, runID string, pin bool) {
	switch un.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Kind: "Node"}:
		taints, _, _ := unstructured.NestedSlice(un.Object, "spec", "taints")
		taints = append(taints, map[string]any{"key": TaintKey, "value": runID, "effect": string(corev1.TaintEffectNoSchedule)})
		_ = unstructured.SetNestedSlice(un.Object, taints, "spec", "taints")
	case schema.GroupKind{Kind: "Pod"}:
		tols, _, _ := unstructured.NestedSlice(un.Object, "spec", "tolerations")
		tols = append(tols, map[string]any{"key": TaintKey, "operator": "Equal", "value": runID, "effect": string(corev1.TaintEffectNoSchedule)})
		_ = unstructured.SetNestedSlice(un.Object, tols, "spec", "tolerations")
		if pin {
			_ = unstructured.SetNestedField(un.Object, runID, "spec", "nodeSelector", RunLabel)
		}
		restrict(un.Object)
		// A killed run cannot delete its pods; on a real node one that
		// runs (a driver profile's workload sleeps an hour) would hold its
		// device share until someone notices. The kubelet ends it instead.
		setDefault(un.Object, int64(PodDeadline/time.Second), "spec", "activeDeadlineSeconds")
	}
}

// PodDeadline bounds how long any pod of the suite may run: far beyond a
// case's own bound (5 minutes by default), short enough that a killed
// run's pods give their devices back by themselves.
const PodDeadline = 30 * time.Minute

// restrict gives a pod what the Pod Security "restricted" level asks, where
// the case did not set it, so the suite runs on a cluster that enforces it
// by default: nothing a case proves needs root, privilege escalation,
// capabilities or an unconfined seccomp profile. The test driver's
// workload is a static binary that runs as any user.
func restrict(pod map[string]any) {
	setDefault(pod, true, "spec", "securityContext", "runAsNonRoot")
	setDefault(pod, int64(65534), "spec", "securityContext", "runAsUser")
	setDefault(pod, int64(65534), "spec", "securityContext", "runAsGroup")
	setDefault(pod, "RuntimeDefault", "spec", "securityContext", "seccompProfile", "type")
	for _, list := range []string{"initContainers", "containers"} {
		containers, _, _ := unstructured.NestedSlice(pod, "spec", list)
		for _, c := range containers {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			setDefault(m, false, "securityContext", "allowPrivilegeEscalation")
			setDefault(m, []any{"ALL"}, "securityContext", "capabilities", "drop")
		}
		if len(containers) > 0 {
			_ = unstructured.SetNestedSlice(pod, containers, "spec", list)
		}
	}
}

// setDefault sets the field at path unless it is there already.
func setDefault(obj map[string]any, value any, path ...string) {
	if _, found, _ := unstructured.NestedFieldNoCopy(obj, path...); found {
		return
	}
	_ = unstructured.SetNestedField(obj, value, path...)
}

// mergePatch applies patch to base as a JSON merge patch (RFC 7386): maps
// merge key by key, a list or scalar replaces, null deletes.
func mergePatch(base, patch map[string]any) (map[string]any, error) {
	doc, err := json.Marshal(normalise(base))
	if err != nil {
		return nil, err
	}
	p, err := json.Marshal(normalise(patch))
	if err != nil {
		return nil, err
	}
	merged, err := jsonpatch.MergePatch(doc, p)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	// apimachinery's decoder keeps integers int64, as unstructured wants.
	if err := utiljson.Unmarshal(merged, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// normalise turns yaml.v3 values into the JSON-like values unstructured
// objects hold (int64, float64, string keys).
func normalise(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalise(x)
		}
		return t
	case map[any]any:
		out := map[string]any{}
		for k, x := range t {
			out[fmt.Sprint(k)] = normalise(x)
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = normalise(x)
		}
		return t
	case int:
		return int64(t)
	case uint64:
		return int64(t)
	}
	return v
}

func describeUse(u *spec.ObjectUse) string {
	if u.Fixture != "" {
		return fmt.Sprintf("fixture %s (%s:%d)", u.Fixture, u.Pos.File, u.Pos.Line)
	}
	return fmt.Sprintf("inline object (%s:%d)", u.Pos.File, u.Pos.Line)
}

// patchScope is the case scope plus the object's name: a patch is written in
// the case, so it sees the case's variables rather than the fixture's params.
func patchScope(env *Env, local string) *spec.Scope {
	s, err := env.Scope().With(spec.Vars{"name": *spec.ScalarNode(local)})
	if err != nil {
		return env.Scope()
	}
	return s
}
