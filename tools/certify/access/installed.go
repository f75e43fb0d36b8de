package access

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Drift is how what is installed on a cluster differs from what
// draconform rbac prints for the subject it binds. A refusal's words say
// which policy refused a write, not what that policy holds: anyone who
// may edit it can keep the words and drop a rule.
type Drift struct {
	// Version is the policy-version annotation of the installed policy,
	// 0 where it has none.
	Version int
	// Differences name each object that differs and where, as
	// "ValidatingAdmissionPolicy draconform-runner: spec.validations[4].expression".
	Differences []string
}

// maxDifferences keeps a report readable: the first few name the edit.
const maxDifferences = 5

// Drift reads the objects of the install (draconform rbac's, or the
// Sonobuoy plugin's), by name, as the credentials of kube (the manifest's
// role grants those reads), and compares each with what is printed for
// the subject the installed ClusterRoleBinding binds that is the user
// (user, groups: who the credentials are). Fields the API server sets or
// defaults are not differences; anything else is, whatever its effect.
func (in Install) Drift(ctx context.Context, kube kubernetes.Interface, user string, groups []string) (Drift, error) {
	var d Drift
	name := in.name()
	p, err := kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return d, fmt.Errorf("reading ValidatingAdmissionPolicy %s: %w", name, err)
	}
	d.Version, _ = strconv.Atoi(p.Annotations[PolicyVersionAnnotation])
	crb, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return d, fmt.Errorf("reading ClusterRoleBinding %s: %w", name, err)
	}
	s, ok := subjectOf(crb.Subjects, user, groups)
	if !ok {
		d.Differences = append(d.Differences, fmt.Sprintf("ClusterRoleBinding %s: binds %s, not %s", name, subjectNames(crb.Subjects), user))
		return d, nil
	}
	for _, want := range in.Objects(s) {
		got, err := installed(ctx, kube, want)
		if err != nil {
			return d, err
		}
		var diffs []string
		compare(comparable(got), comparable(want), "", &diffs)
		for _, path := range diffs {
			d.Differences = append(d.Differences, describeObject(want)+": "+path)
		}
	}
	if len(d.Differences) > maxDifferences {
		d.Differences = append(d.Differences[:maxDifferences], fmt.Sprintf("and %d more", len(d.Differences)-maxDifferences))
	}
	return d, nil
}

// subjectOf is the subject of the installed binding that the user is,
// parsed as draconform rbac parses it; where the user is unknown, the
// binding's one subject.
func subjectOf(subjects []rbacv1.Subject, user string, groups []string) (Subject, bool) {
	for _, sub := range subjects {
		var spec string
		switch sub.Kind {
		case rbacv1.ServiceAccountKind:
			spec = "serviceaccount:" + sub.Namespace + "/" + sub.Name
		case rbacv1.UserKind, rbacv1.GroupKind:
			spec = strings.ToLower(sub.Kind) + ":" + sub.Name
		}
		s, err := ParseSubject(spec)
		if err != nil {
			continue
		}
		is := user == "" && len(subjects) == 1
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			is = is || user == "system:serviceaccount:"+s.Namespace+":"+s.Name
		case rbacv1.UserKind:
			is = is || user == s.Name
		case rbacv1.GroupKind:
			is = is || slices.Contains(groups, s.Name)
		}
		if is {
			return s, true
		}
	}
	return Subject{}, false
}

func subjectNames(subjects []rbacv1.Subject) string {
	var out []string
	for _, s := range subjects {
		out = append(out, s.Kind+" "+strings.TrimPrefix(s.Namespace+"/", "/")+s.Name)
	}
	if len(out) == 0 {
		return "no subject"
	}
	return strings.Join(out, ", ")
}

// installed reads the installed object of want's kind, namespace and name.
func installed(ctx context.Context, kube kubernetes.Interface, want any) (any, error) {
	var got any
	var err error
	switch w := want.(type) {
	case *rbacv1.ClusterRole:
		got, err = kube.RbacV1().ClusterRoles().Get(ctx, w.Name, metav1.GetOptions{})
	case *rbacv1.ClusterRoleBinding:
		got, err = kube.RbacV1().ClusterRoleBindings().Get(ctx, w.Name, metav1.GetOptions{})
	case *rbacv1.Role:
		got, err = kube.RbacV1().Roles(w.Namespace).Get(ctx, w.Name, metav1.GetOptions{})
	case *rbacv1.RoleBinding:
		got, err = kube.RbacV1().RoleBindings(w.Namespace).Get(ctx, w.Name, metav1.GetOptions{})
	case *admissionv1.ValidatingAdmissionPolicy:
		got, err = kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, w.Name, metav1.GetOptions{})
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		got, err = kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(ctx, w.Name, metav1.GetOptions{})
	default:
		return nil, fmt.Errorf("draconform rbac prints a %T, which the preflight cannot read back", want)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", describeObject(want), err)
	}
	return got, nil
}

func describeObject(o any) string {
	m, ok := o.(metav1.ObjectMetaAccessor)
	if !ok {
		return fmt.Sprintf("%T", o)
	}
	kind := reflect.TypeOf(o).Elem().Name()
	if ns := m.GetObjectMeta().GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + m.GetObjectMeta().GetName()
	}
	return kind + " " + m.GetObjectMeta().GetName()
}

// comparable is what of an object confines or grants, as the API server
// stores it: the rules of a role, the subjects and role of a binding, the
// spec of a policy or its binding, with the server's defaults filled in;
// not its metadata or status.
func comparable(o any) map[string]any {
	var fields any
	switch o := o.(type) {
	case *rbacv1.ClusterRole:
		fields = struct {
			Rules           []rbacv1.PolicyRule     `json:"rules"`
			AggregationRule *rbacv1.AggregationRule `json:"aggregationRule,omitempty"`
		}{o.Rules, o.AggregationRule}
	case *rbacv1.Role:
		fields = struct {
			Rules []rbacv1.PolicyRule `json:"rules"`
		}{o.Rules}
	case *rbacv1.ClusterRoleBinding:
		fields = struct {
			Subjects []rbacv1.Subject `json:"subjects"`
			RoleRef  rbacv1.RoleRef   `json:"roleRef"`
		}{o.Subjects, o.RoleRef}
	case *rbacv1.RoleBinding:
		fields = struct {
			Subjects []rbacv1.Subject `json:"subjects"`
			RoleRef  rbacv1.RoleRef   `json:"roleRef"`
		}{o.Subjects, o.RoleRef}
	case *admissionv1.ValidatingAdmissionPolicy:
		spec := o.Spec.DeepCopy()
		defaultPolicy(spec)
		fields = struct {
			Spec *admissionv1.ValidatingAdmissionPolicySpec `json:"spec"`
		}{spec}
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		spec := o.Spec.DeepCopy()
		defaultMatch(spec.MatchResources)
		fields = struct {
			Spec *admissionv1.ValidatingAdmissionPolicyBindingSpec `json:"spec"`
		}{spec}
	}
	// JSON, as the API server stores it: omitted fields are left out.
	var m map[string]any
	data, err := json.Marshal(fields)
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		return map[string]any{"unconvertible": err.Error()}
	}
	return m
}

// defaultPolicy fills in what the API server defaults in a policy's spec
// (k8s.io/kubernetes/pkg/apis/admissionregistration/v1/defaults.go), so
// that a field the manifest leaves out is not a difference.
func defaultPolicy(spec *admissionv1.ValidatingAdmissionPolicySpec) {
	if spec.FailurePolicy == nil {
		spec.FailurePolicy = ptr.To(admissionv1.Fail)
	}
	defaultMatch(spec.MatchConstraints)
}

func defaultMatch(m *admissionv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr.To(admissionv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptr.To(admissionv1.AllScopes)
			}
		}
	}
}

// compare appends to diffs each path where got and want differ. A field
// left out and one set to its zero value are the same.
func compare(got, want any, path string, diffs *[]string) {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if (gok || isZero(got)) && (wok || isZero(want)) && (gok || wok) {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			compare(gm[k], wm[k], strings.TrimPrefix(path+"."+k, "."), diffs)
		}
		return
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok {
		if len(gl) != len(wl) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %d installed, %d printed", path, len(gl), len(wl)))
		}
		for i := range min(len(gl), len(wl)) {
			compare(gl[i], wl[i], fmt.Sprintf("%s[%d]", path, i), diffs)
		}
		return
	}
	if isZero(got) && isZero(want) || reflect.DeepEqual(got, want) {
		return
	}
	*diffs = append(*diffs, path)
}

func isZero(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Map, reflect.Slice:
		return r.Len() == 0
	}
	return r.IsZero()
}
