// Package access says what a run needs of a cluster it did not start, and
// checks that before any case: the RBAC rules (shipped as a manifest by
// draconform rbac), the admission policy that confines those rules to the
// run's own objects, and what a run would set off there (DaemonSets that
// follow fake Nodes).
package access

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// RoleName names the ClusterRole, its binding, the Role in
// kube-node-lease and the admission policy.
const RoleName = "draconform-runner"

// LeaseNamespace is where fake Nodes renew their heartbeat Leases.
const LeaseNamespace = "kube-node-lease"

var read = []string{"get", "list", "watch"}

// ClusterRules are the cluster-wide permissions of a run: what the shipped
// suites and the runner do, verb by verb (server-side apply, a patch, only
// on DeviceClasses; updates only where a suite or the runner updates).
// RBAC cannot name "the namespaces and objects this run created", so writes
// are granted by kind here and confined to the run's own objects by the
// admission policy (see Policy), which the cluster enforces.
func ClusterRules() []rbacv1.PolicyRule { return Install{}.ClusterRules() }

// ClusterRules are ClusterRules of the install: the preflight reads back
// the install's own objects, by their names.
func (in Install) ClusterRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// Each case's namespace; cleanup lists leftovers by label.
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "create", "delete"}},
		// Fake Nodes, which the cases that need no kubelet schedule onto:
		// created, cleared of the not-ready taint, marked Ready, deleted.
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: append(read, "create", "update", "delete")},
		{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"update"}},
		// The cases' pods (a case updates one to show a field immutable),
		// written by kind here, confined to the run's namespaces by the
		// admission policy; read only where ReadRoleName is bound.
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "update", "delete", "deletecollection"}},
		// Pods, their events and logs are read only in a case's
		// namespace: the runner binds ReadRoleName (and LogRoleName for
		// logs) there to itself (the admission policy lets it bind nothing
		// else, to no one else), so it reads no pod spec, event or log of
		// the cluster's own workloads, kube-system's included.
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"rolebindings"}, Verbs: []string{"create"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: []string{LogRoleName, ReadRoleName}},
		{APIGroups: []string{""}, Resources: []string{"resourcequotas"}, Verbs: append(read, "create", "delete")},
		// DRA: the cases' classes (applied too), slices and claims; the
		// cluster's own are read for its facts.
		{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"deviceclasses"}, Verbs: append(read, "create", "update", "patch", "delete")},
		{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceslices"}, Verbs: append(read, "create", "update", "delete")},
		{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims"}, Verbs: append(read, "create", "delete")},
		// The preflight lists DaemonSets whose pods would follow fake Nodes.
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: []string{"list"}},
		// The preflight reads back what draconform rbac installed, by name,
		// to compare it with what it prints: an edited policy or role is
		// not the one whose confinement a run vouches for.
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings"}, Verbs: []string{"get"}, ResourceNames: []string{in.name()}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, Verbs: []string{"get"}, ResourceNames: []string{in.name(), LogRoleName, ReadRoleName}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings"}, Verbs: []string{"get"}, ResourceNames: []string{in.name()}},
	}
}

// LogRoleName is the ClusterRole of log reads, which the runner binds in
// each case namespace that runs pods on a kubelet (see LogRules).
const LogRoleName = "draconform-runner-logs"

// LogRules are what LogRoleName grants where it is bound: the logs of
// the namespace's pods.
func LogRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}}}
}

// ReadRoleName is the ClusterRole of the reads a run makes in a case's
// namespace, which the runner binds there as soon as it makes it (see
// ReadRules).
const ReadRoleName = "draconform-runner-reads"

// ReadRules are what ReadRoleName grants where it is bound: the
// namespace's pods, the scheduler's events about them, and its default
// ServiceAccount, without which pods are refused.
func ReadRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "events", "serviceaccounts"}, Verbs: read}}
}

// LeaseRules are granted in LeaseNamespace only: each fake Node renews a
// Lease there, as a kubelet does, so the node lifecycle controller leaves
// it alone for its short life; cleanup lists them to tell a killed run
// from one still going. The preflight reads back this Role and its
// binding, as it does the cluster-wide objects (see ClusterRules).
func LeaseRules() []rbacv1.PolicyRule { return Install{}.LeaseRules() }

// LeaseRules are LeaseRules of the install, which reads back its own Role
// and binding.
func (in Install) LeaseRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "create", "update", "delete"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"get"}, ResourceNames: []string{in.name()}},
	}
}

// Need is one verb on one resource, in a namespace or cluster-wide ("").
type Need struct {
	Group, Resource, Subresource, Verb, Namespace string
	// Name is the one object the verb is granted on, or "" for all.
	Name string
}

func (n Need) String() string {
	r := n.Resource
	if n.Subresource != "" {
		r += "/" + n.Subresource
	}
	if n.Group != "" {
		r += "." + n.Group
	}
	where := "cluster-wide"
	if n.Namespace != "" {
		where = "in namespace " + n.Namespace
	}
	if n.Name != "" {
		r += " " + n.Name
	}
	return n.Verb + " " + r + " " + where
}

// Needs lists every permission the rules grant, one verb at a time, as
// SelfSubjectAccessReview asks.
func Needs() []Need { return Install{}.Needs() }

// Needs are Needs of the install's rules.
func (in Install) Needs() []Need {
	var out []Need
	add := func(rules []rbacv1.PolicyRule, ns string) {
		for _, r := range rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					resource, sub, _ := strings.Cut(res, "/")
					names := r.ResourceNames
					if len(names) == 0 {
						names = []string{""}
					}
					for _, v := range r.Verbs {
						for _, name := range names {
							out = append(out, Need{Group: g, Resource: resource, Subresource: sub, Verb: v, Namespace: ns, Name: name})
						}
					}
				}
			}
		}
	}
	add(in.ClusterRules(), "")
	add(in.LeaseRules(), LeaseNamespace)
	return out
}
