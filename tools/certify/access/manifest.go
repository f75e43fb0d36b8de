package access

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// RunLabel marks every object a run creates; the policy lets the runner
// write nothing else. It is steps.RunLabel, repeated here so that this
// package needs nothing of the steps.
const RunLabel = "draconform.dev/run"

// Subject is who runs draconform: a ServiceAccount, a user or a group.
type Subject struct {
	Kind      string // rbacv1.ServiceAccountKind, UserKind or GroupKind
	Name      string
	Namespace string // a ServiceAccount's
}

// safeName keeps a name out of trouble inside the policy's CEL string.
var safeName = regexp.MustCompile(`^[A-Za-z0-9@._:+-]+$`)

// ParseSubject reads serviceaccount:NS/NAME, user:NAME or group:NAME.
func ParseSubject(s string) (Subject, error) {
	kind, name, ok := strings.Cut(s, ":")
	bad := fmt.Errorf("subject %q: want serviceaccount:NAMESPACE/NAME, user:NAME or group:NAME", s)
	if !ok || name == "" {
		return Subject{}, bad
	}
	switch strings.ToLower(kind) {
	case "serviceaccount", "sa":
		ns, n, ok := strings.Cut(name, "/")
		if !ok || ns == "" || n == "" || !safeName.MatchString(ns) || !safeName.MatchString(n) {
			return Subject{}, bad
		}
		if ns == "kube-system" {
			return Subject{}, fmt.Errorf("subject %q: a service account of kube-system is a component's (a controller's, a scheduler's): draconform's role would give it Node and pod writes, and its admission policy would then refuse that component's own writes; make a service account of its own for the runner", s)
		}
		return Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: n}, nil
	case "user", "group":
		if !safeName.MatchString(name) {
			return Subject{}, fmt.Errorf("subject %q: the name may hold letters, digits and @._:+- only", s)
		}
		// system: names are Kubernetes' own: group:system:authenticated is
		// every user, system:masters the admins, system:node:* the kubelets.
		// Bound to them, draconform's role would reach far past the runner,
		// and its admission policy would refuse the components' writes.
		if strings.HasPrefix(strings.ToLower(name), "system:") {
			return Subject{}, fmt.Errorf("subject %q: names under system: are Kubernetes' own (every user, the admins, the nodes, the components), never the runner alone; name a user, group or service account that only the runner is", s)
		}
		k := rbacv1.UserKind
		if strings.ToLower(kind) == "group" {
			k = rbacv1.GroupKind
		}
		return Subject{Kind: k, Name: name}, nil
	}
	return Subject{}, bad
}

func (s Subject) rbac() rbacv1.Subject {
	if s.Kind == rbacv1.ServiceAccountKind {
		return rbacv1.Subject{Kind: s.Kind, Name: s.Name, Namespace: s.Namespace}
	}
	return rbacv1.Subject{Kind: s.Kind, Name: s.Name, APIGroup: rbacv1.GroupName}
}

// match is the CEL condition selecting the subject's requests.
func (s Subject) match() string {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		return fmt.Sprintf("request.userInfo.username == 'system:serviceaccount:%s:%s'", s.Namespace, s.Name)
	case rbacv1.GroupKind:
		return fmt.Sprintf("'%s' in request.userInfo.groups", s.Name)
	}
	return fmt.Sprintf("request.userInfo.username == '%s'", s.Name)
}

// ownObjects is the policy's one rule: a write by the runner must be to an
// object of its own: one it creates with the run label, one that had the
// label and a name of its run's (dc-<run>-) before (an update or delete
// cannot take a foreign object over by adding the label, nor reach one
// that someone else labelled), or anything in a namespace of its run's,
// so labelled and named (the case's namespace, where the scheduler's
// claims and the pods' subresources live). Names on create are held by
// the validations below.
func ownObjects() string {
	return `(namespaceObject != null && ` + runOwned("namespaceObject") + `) ||
(request.operation == 'CREATE' ?
  (object != null && has(object.metadata.labels) && '` + RunLabel + `' in object.metadata.labels) :
  (oldObject != null && ` + runOwned("oldObject") + `))`
}

// runOwned is the CEL test that obj carries the run label and a name of
// that run's: dc-<run>-...
func runOwned(obj string) string {
	return `has(` + obj + `.metadata.labels) && '` + RunLabel + `' in ` + obj + `.metadata.labels && ` +
		obj + `.metadata.name.startsWith('dc-' + ` + obj + `.metadata.labels['` + RunLabel + `'] + '-')`
}

// Policy confines the subject's writes to the run's own objects, and what
// it writes to what a run writes (see confineValidations): ownership alone
// would let it write a privileged namespace, a pod on a real Node, a slice
// for a real driver or a class capturing a real resource.
func Policy(s Subject) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	return Install{}.policy(s)
}

func (in Install) policy(s Subject) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	meta := metav1.ObjectMeta{Name: in.name(), Labels: in.Labels, Annotations: versionAnnotation()}
	p := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta,
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect},
					Rule:       admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}, Scope: ptr.To(admissionv1.AllScopes)},
				},
			}}},
			MatchConditions: []admissionv1.MatchCondition{{Name: "draconform-runner", Expression: s.match()}},
			Variables:       append(confineVariables(), podVariables()...),
			Validations: append([]admissionv1.Validation{{
				Expression: ownObjects(),
				Message:    "draconform writes only objects it created: they carry the label " + RunLabel + ", or live in a namespace that does " + versionMark(PolicyVersion),
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}}, confineValidations()...),
		},
	}
	b := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta,
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        in.name(),
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	return p, b
}

// Objects are what an administrator applies so that the subject can run
// draconform, and nothing more: the ClusterRole and its binding, the
// ClusterRoles of log reads and of pod reads (bound by the runner in its
// case namespaces only), the Role for heartbeat Leases and its binding,
// and the admission policy with its binding.
func Objects(s Subject) []any { return Install{}.Objects(s) }

// Objects are Objects(s), named and labelled as in says. The ClusterRoles
// the runner binds itself keep their names, which it binds them by.
func (in Install) Objects(s Subject) []any {
	subj := []rbacv1.Subject{s.rbac()}
	meta := in.rbacMeta
	cr := &rbacv1.ClusterRole{Rules: in.ClusterRules()}
	cr.TypeMeta, cr.ObjectMeta = meta("ClusterRole", "")
	crb := &rbacv1.ClusterRoleBinding{Subjects: subj, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: in.name()}}
	crb.TypeMeta, crb.ObjectMeta = meta("ClusterRoleBinding", "")
	role := &rbacv1.Role{Rules: in.LeaseRules()}
	role.TypeMeta, role.ObjectMeta = meta("Role", LeaseNamespace)
	rb := &rbacv1.RoleBinding{Subjects: subj, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: in.name()}}
	rb.TypeMeta, rb.ObjectMeta = meta("RoleBinding", LeaseNamespace)
	shared := func(name string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
		r := &rbacv1.ClusterRole{Rules: rules}
		r.TypeMeta, r.ObjectMeta = Install{Name: name}.rbacMeta("ClusterRole", "")
		return r
	}
	p, pb := in.policy(s)
	return []any{cr, crb, shared(LogRoleName, LogRules()), shared(ReadRoleName, ReadRules()), role, rb, p, pb}
}

func versionAnnotation() map[string]string {
	return map[string]string{PolicyVersionAnnotation: strconv.Itoa(PolicyVersion)}
}

// Manifest renders Objects as one YAML stream for kubectl apply.
func Manifest(s Subject) ([]byte, error) { return Install{}.Manifest(s) }

// Manifest renders in.Objects as one YAML stream for kubectl apply.
func (in Install) Manifest(s Subject) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# What %s %s needs to run draconform on this cluster (draconform rbac).\n", strings.ToLower(s.Kind), s.rbac().Name)
	fmt.Fprintf(&buf, "# RBAC grants the verbs by kind; the admission policy confines writes to objects labelled %s,\n", RunLabel)
	buf.WriteString("# and what is written to what a run writes: restricted namespaces, pods on its own Nodes only, its own drivers, classes and resource names.\n")
	for _, o := range in.Objects(s) {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("rendering the manifest: %w", err)
		}
		buf.WriteString("---\n")
		buf.Write(stripStatus(data))
	}
	return buf.Bytes(), nil
}

// stripStatus drops the empty status and creationTimestamp that typed
// objects marshal, which kubectl would only echo back.
func stripStatus(data []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		t := string(line)
		if t == "status: {}" || strings.TrimSpace(t) == "creationTimestamp: null" {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
