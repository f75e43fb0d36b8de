package access

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Report is what the preflight found.
type Report struct {
	Server, Version string
	// User and Groups are who the credentials are, as the API server says.
	User   string
	Groups []string
	// Missing are the permissions a run needs that the user lacks.
	Missing []Need
	Checked int
	// Confined says whether the cluster refuses the user's writes to
	// objects draconform did not create, and with which policy: one of
	// ConfinedCurrent, ConfinedOlder, Unconfined, ConfinedUnknown. Only
	// ConfinedCurrent lets a run write without --allow-unconfined.
	Confined string
	// ConfinedWhy says, where Confined is not ConfinedCurrent, what was
	// found: the installed object that differs from what draconform rbac
	// prints, and where.
	ConfinedWhy string
	// Followers are what would land on draconform's fake Nodes; nil where
	// they could not be listed.
	Followers *Followers
	// NodeLeases counts the heartbeat Leases of the cluster's Nodes: where
	// there are some, a node lifecycle controller watches them.
	NodeLeases int
}

// ErrUnusable marks a cluster a run cannot use at all: credentials that do
// not load, an API server that does not answer or refuses them, missing
// permissions. The CLI says it once and exits 2, before creating anything.
var ErrUnusable = errors.New("the cluster cannot be used")

// Check reaches the API server with cfg and asks it whether a run could
// proceed: who the credentials are, each permission of Needs, whether
// writes are confined, and what fake Nodes would set off. It creates
// nothing (the confinement check is a dry run). The error wraps
// ErrUnusable when the run must not start.
func Check(ctx context.Context, cfg *rest.Config) (Report, error) {
	r := Report{Server: cfg.Host}
	c := rest.CopyConfig(cfg)
	c.Timeout = 15 * time.Second
	// One review per permission, some sixty: at client-go's default of 5
	// requests a second the preflight alone took 12 s.
	c.QPS, c.Burst = 50, 100
	kube, err := kubernetes.NewForConfig(c)
	if err != nil {
		return r, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	v, err := kube.Discovery().ServerVersion()
	if err != nil {
		return r, unreachable(cfg.Host, err)
	}
	r.Version = v.GitVersion
	if ssr, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{}); err == nil {
		r.User, r.Groups = ssr.Status.UserInfo.Username, ssr.Status.UserInfo.Groups
	} else if apierrors.IsUnauthorized(err) {
		return r, fmt.Errorf("%w: the API server at %s refused the credentials (401 Unauthorized): %v", ErrUnusable, cfg.Host, err)
	}
	in := installOf(ctx, kube, r.User)
	for _, n := range in.Needs() {
		ok, err := allowed(ctx, kube, n)
		if err != nil {
			return r, fmt.Errorf("%w: asking the API server at %s what the credentials may do (SelfSubjectAccessReview): %v", ErrUnusable, cfg.Host, err)
		}
		r.Checked++
		if !ok {
			r.Missing = append(r.Missing, n)
		}
	}
	r.Confined, r.ConfinedWhy = confined(ctx, kube, in, r.User, r.Groups)
	if f, err := FollowFakeNodes(ctx, kube); err == nil {
		r.Followers = &f
	}
	if leases, err := kube.CoordinationV1().Leases(LeaseNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		r.NodeLeases = len(leases.Items)
	}
	if len(r.Missing) > 0 {
		return r, fmt.Errorf("%w: %s lacks %d of the %d permissions a run needs (draconform rbac prints a manifest that grants them):\n  %s",
			ErrUnusable, r.Who(), len(r.Missing), r.Checked, strings.Join(needStrings(r.Missing), "\n  "))
	}
	return r, nil
}

// Who is the user the credentials are, as the API server says.
func (r Report) Who() string {
	if r.User == "" {
		return "the user"
	}
	return r.User
}

func needStrings(ns []Need) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.String()
	}
	return out
}

// unreachable says why the API server did not answer, in the words a
// person fixes it with.
func unreachable(host string, err error) error {
	var ue *url.Error
	var ne net.Error
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w: the API server at %s refused the credentials (401 Unauthorized)", ErrUnusable, host)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: the API server at %s did not answer within 15 s: %v", ErrUnusable, host, err)
	case errors.As(err, &ue):
		return fmt.Errorf("%w: cannot reach the API server at %s: %v", ErrUnusable, host, ue.Err)
	}
	return fmt.Errorf("%w: the API server at %s: %v", ErrUnusable, host, err)
}

func allowed(ctx context.Context, kube kubernetes.Interface, n Need) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: n.Namespace, Name: n.Name, Verb: n.Verb, Group: n.Group, Resource: n.Resource, Subresource: n.Subresource},
	}}
	got, err := kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return got.Status.Allowed, nil
}

// confined tries a dry-run create of a namespace without the run label:
// a cluster that confines the user refuses it, and draconform's policy
// says its version in the refusal. Words can be kept while rules are
// dropped, so a refusal in today's words counts only where what is
// installed is what draconform rbac prints for the install in (see
// Install.Drift). It returns the state and, but for ConfinedCurrent, why.
func confined(ctx context.Context, kube kubernetes.Interface, in Install, user string, groups []string) (string, string) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "draconform-preflight-"}}
	_, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	switch {
	case err == nil:
		return Unconfined, "nothing refused a dry-run namespace that is not draconform's"
	case !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err):
		return ConfinedUnknown, fmt.Sprintf("a dry-run namespace that is not draconform's could not be tried: %v", err)
	}
	switch confinement(err.Error()) {
	case ConfinedOlder:
		return ConfinedOlder, "an older policy of draconform's refused a dry-run namespace that is not draconform's"
	case ConfinedUnknown:
		return ConfinedUnknown, "a dry-run namespace that is not draconform's was refused, but not by draconform's admission policy"
	}
	d, err := in.Drift(ctx, kube, user, groups)
	switch {
	case err != nil:
		return ConfinedUnknown, fmt.Sprintf("draconform's policy refused a dry-run namespace, but what is installed could not be read back to compare with what draconform rbac prints: %v", err)
	case len(d.Differences) == 0:
		return ConfinedCurrent, ""
	case d.Version < PolicyVersion:
		return ConfinedOlder, fmt.Sprintf("the installed policy is version %d, this draconform prints version %d: %s", d.Version, PolicyVersion, strings.Join(d.Differences, "; "))
	}
	return Unconfined, "what is installed differs from what draconform rbac prints, and an edited policy or role confines nothing draconform can vouch for: " + strings.Join(d.Differences, "; ")
}

// FakeNodeTaint is the taint of every Node the suite creates (its value is
// the run's id); only draconform's own pods tolerate it, by that value.
var FakeNodeTaint = corev1.Taint{Key: RunLabel, Value: "run-id", Effect: corev1.TaintEffectNoSchedule}

// Followers are the cluster's workloads a fake Node draws, as
// namespace/name.
type Followers struct {
	// DaemonSets put a pod on every fake Node.
	DaemonSets []string
	// PendingPods may be bound to a fake Node, where they never run, while
	// it lives; the scheduler retries every pending pod when a Node comes.
	PendingPods []string
	// PendingUnread says why the pending pods were not listed: the
	// runner draconform rbac makes reads pods in its own namespaces only.
	PendingUnread string
}

// FollowFakeNodes lists the DaemonSets and pending pods that would land on
// a fake Node: those that tolerate its taint (a toleration of every taint,
// as node agents, CNI and CSI plugins have) and whose node selection a Node
// with no labels but its hostname and the run's satisfies.
func FollowFakeNodes(ctx context.Context, kube kubernetes.Interface) (Followers, error) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "dc-run-case-n1", Labels: map[string]string{corev1.LabelHostname: "dc-run-case-n1", RunLabel: "run-id"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{FakeNodeTaint}}}
	f := Followers{DaemonSets: []string{}, PendingPods: []string{}}
	list, err := kube.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return f, fmt.Errorf("listing DaemonSets: %w", err)
	}
	for _, ds := range list.Items {
		if follows(&ds.Spec.Template.Spec, node) {
			f.DaemonSets = append(f.DaemonSets, ds.Namespace+"/"+ds.Name)
		}
	}
	pods, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName="})
	if apierrors.IsForbidden(err) {
		f.PendingPods, f.PendingUnread = nil, err.Error()
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("listing pending pods: %w", err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil && follows(&p.Spec, node) {
			f.PendingPods = append(f.PendingPods, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(f.DaemonSets)
	slices.Sort(f.PendingPods)
	return f, nil
}

func follows(spec *corev1.PodSpec, node *corev1.Node) bool {
	for i := range node.Spec.Taints {
		tolerated := false
		for _, t := range spec.Tolerations {
			if t.ToleratesTaint(klog.Background(), &node.Spec.Taints[i], false) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return false
		}
	}
	ok, _ := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec}).Match(node)
	return ok
}
