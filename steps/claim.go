package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/draconform/draconform/steps/match"
	"github.com/draconform/draconform/tools/lang/spec"
)

// ClaimGVR is where ResourceClaims are read, in the version the suite speaks.
var ClaimGVR = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}

// ExtendedResourceClaimAnnotation marks the claim the scheduler synthesizes
// for a pod's extended resources (KEP-5004).
const ExtendedResourceClaimAnnotation = "resource.kubernetes.io/extended-resource-claim"

// ExpectClaim checks the requests and allocation of a claim: a pod's
// synthesized one, or a hand-written claim of the case.
type ExpectClaim struct{ Spec *spec.ExpectClaim }

// Describe implements Step.
func (s *ExpectClaim) Describe() string {
	if s.Spec.Pod != "" {
		return "the claim synthesized for pod " + s.Spec.Pod
	}
	return "claim " + s.Spec.Claim
}

// Run implements Step.
func (s *ExpectClaim) Run(ctx context.Context, env *Env) error {
	// Each phase (pod status, claim, mapping) gets the whole bound: a late
	// pod status must not leave the claim check a few milliseconds.
	within := s.Spec.Within.Or(defaultScheduleWithin)
	var claim *Created
	if s.Spec.Pod != "" {
		c, err := synthesizedClaim(ctx, env, s.Spec.Pod, within)
		if err != nil {
			return err
		}
		claim = c
	} else {
		c, err := env.Lookup(spec.RefOf("ResourceClaim", s.Spec.Claim))
		if err != nil {
			return err
		}
		claim = c
	}
	want, err := s.claimTree(env)
	if err != nil {
		return err
	}
	if err := matchObject(ctx, env, claim, want, within); err != nil {
		return fmt.Errorf("%s: %w", s.Describe(), err)
	}
	if s.Spec.Only {
		if err := onlyClaim(ctx, env, s.Spec.Pod, claim); err != nil {
			return err
		}
	}
	if s.Spec.Mapping == nil {
		return nil
	}
	pod, err := env.Lookup(spec.RefOf("Pod", s.Spec.Pod))
	if err != nil {
		return err
	}
	mapping, err := s.mappingTree(env, claim.Object.GetName())
	if err != nil {
		return err
	}
	if err := matchObject(ctx, env, pod, mapping, within); err != nil {
		return fmt.Errorf("pod %s's extendedResourceClaimStatus: %w", s.Spec.Pod, err)
	}
	return nil
}

// claimTree turns the expectation into a partial tree of the claim, so one
// matcher reports every difference by field path.
func (s *ExpectClaim) claimTree(env *Env) (map[string]any, error) {
	want := map[string]any{}
	if s.Spec.Requests != nil {
		reqs := []any{}
		for _, r := range s.Spec.Requests {
			ex, err := exactRequestTree(env, r)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, map[string]any{"name": r.Name, "exactly": ex})
		}
		want["spec"] = map[string]any{"devices": map[string]any{"requests": reqs}}
	}
	if s.Spec.Results != nil {
		driver, _ := env.Scope().String("${driver}")
		results := []any{}
		for _, r := range s.Spec.Results {
			m, err := resultTree(env, driver, r)
			if err != nil {
				return nil, err
			}
			results = append(results, m)
		}
		// The KEP (and KEP-5075) leave the order of results open: a request
		// for count 3 may list its devices in any order.
		want["status"] = map[string]any{"allocation": map[string]any{"devices": map[string]any{"results": match.Unordered(results)}}}
	}
	return want, nil
}

// exactRequestTree is the partial tree of one wanted request's exactly:.
func exactRequestTree(env *Env, r spec.ClaimRequest) (map[string]any, error) {
	ex := map[string]any{}
	if r.DeviceClass != "" {
		name, err := env.NameOf(spec.RefOf("DeviceClass", r.DeviceClass))
		if err != nil {
			return nil, err
		}
		ex["deviceClassName"] = name
	}
	if r.Count != nil {
		ex["count"] = *r.Count
	}
	if spec.IsSet(r.Capacity) {
		if spec.IsNull(r.Capacity) {
			ex["capacity"] = nil
		} else {
			tree, err := expandTree(env, &r.Capacity)
			if err != nil {
				return nil, err
			}
			ex["capacity"] = map[string]any{"requests": tree}
		}
	}
	for _, f := range r.Absent {
		ex[f] = nil
	}
	return ex, nil
}

// resultTree is the partial tree of one wanted allocation result.
func resultTree(env *Env, driver string, r spec.ClaimResult) (map[string]any, error) {
	m := map[string]any{"request": r.Request, "driver": driver}
	if r.Device != "" {
		device, err := env.Scope().String(r.Device)
		if err != nil {
			return nil, err
		}
		m["device"] = device
	}
	if spec.IsSet(r.ConsumedCapacity) {
		if spec.IsNull(r.ConsumedCapacity) {
			m["consumedCapacity"] = nil
		} else {
			tree, err := expandTree(env, &r.ConsumedCapacity)
			if err != nil {
				return nil, err
			}
			m["consumedCapacity"] = tree
		}
	}
	switch r.ShareID {
	case "set":
		m["shareID"] = match.AnyValue
	case "unset":
		m["shareID"] = nil
	}
	for _, f := range r.Absent {
		m[f] = nil
	}
	return m, nil
}

func (s *ExpectClaim) mappingTree(env *Env, claimName string) (map[string]any, error) {
	mappings := []any{}
	for _, m := range s.Spec.Mapping {
		resource, err := env.Scope().String(m.Resource)
		if err != nil {
			return nil, err
		}
		mappings = append(mappings, map[string]any{"containerName": m.Container, "resourceName": resource, "requestName": m.Request})
	}
	return map[string]any{"status": map[string]any{"extendedResourceClaimStatus": map[string]any{
		"resourceClaimName": claimName,
		"requestMappings":   mappings,
	}}}, nil
}

// synthesizedClaim waits for the pod to name its extended-resource claim,
// then checks it is the pod's only such claim, owned by it and annotated.
func synthesizedClaim(ctx context.Context, env *Env, local string, within time.Duration) (*Created, error) {
	var claimName string
	var pod *corev1.Pod
	err := watchPod(ctx, env, local, within, func(p *corev1.Pod) error {
		if p.Status.ExtendedResourceClaimStatus == nil || p.Status.ExtendedResourceClaimStatus.ResourceClaimName == "" {
			return notYet{"pod " + local + " has no status.extendedResourceClaimStatus; " + schedulingState(p)}
		}
		claimName, pod = p.Status.ExtendedResourceClaimStatus.ResourceClaimName, p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the claim synthesized for pod %s: %w", local, err)
	}
	owned, err := claimsOwnedBy(ctx, env, pod)
	if err != nil {
		return nil, err
	}
	// A pod also owns the claims made from its ResourceClaimTemplates; only
	// the annotated ones are synthesized for extended resources.
	var found *unstructured.Unstructured
	var names, synthesized []string
	for i := range owned {
		names = append(names, owned[i].GetName())
		if owned[i].GetAnnotations()[ExtendedResourceClaimAnnotation] == "true" {
			synthesized = append(synthesized, owned[i].GetName())
		}
		if owned[i].GetName() == claimName {
			found = &owned[i]
		}
	}
	switch {
	case found == nil:
		return nil, fmt.Errorf("pod %s names claim %s in its status, but no such claim is owned by the pod (owned: %v)", local, claimName, names)
	case found.GetAnnotations()[ExtendedResourceClaimAnnotation] != "true":
		return nil, fmt.Errorf("claim %s of pod %s lacks the annotation %s: \"true\" (annotations: %v)", claimName, local, ExtendedResourceClaimAnnotation, found.GetAnnotations())
	case len(synthesized) != 1:
		return nil, fmt.Errorf("pod %s owns %d extended-resource claims %v; the scheduler must synthesize exactly one per pod", local, len(synthesized), synthesized)
	}
	return &Created{GVR: ClaimGVR, Namespaced: true, Object: found}, nil
}

// claimsOwnedBy lists the claims whose owner is the pod.
func claimsOwnedBy(ctx context.Context, env *Env, pod *corev1.Pod) ([]unstructured.Unstructured, error) {
	list, err := env.Clients.Dyn.Resource(ClaimGVR).Namespace(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing claims: %w", err)
	}
	var out []unstructured.Unstructured
	for _, c := range list.Items {
		if ownedBy(&c, string(pod.UID)) {
			out = append(out, c)
		}
	}
	return out, nil
}

func ownedBy(u *unstructured.Unstructured, uid string) bool {
	for _, o := range u.GetOwnerReferences() {
		if string(o.UID) == uid {
			return true
		}
	}
	return false
}

func checkExpectClaim(c Checker, st *spec.Step) {
	e, p := st.ExpectClaim, st.Pos
	if (e.Pod == "") == (e.Claim == "") {
		c.Problem(p, "", "expectClaim needs exactly one of pod: or claim:")
	}
	if e.Pod != "" {
		c.Need(p, spec.RefOf("Pod", e.Pod))
	}
	if e.Claim != "" {
		c.Need(p, spec.RefOf("ResourceClaim", e.Claim))
	}
	if e.Requests == nil && e.Results == nil && e.Mapping == nil {
		c.Problem(p, "requests:, results: or mapping:", "expectClaim checks nothing")
	}
	for i := range e.Requests {
		if e.Requests[i].DeviceClass != "" {
			c.Need(p, spec.RefOf("DeviceClass", e.Requests[i].DeviceClass))
		}
		c.Vars(&e.Requests[i].Capacity)
		checkAbsent(c, p, "requests", e.Requests[i].Absent, exactRequestFields, []string{"capacity", "count", "deviceClassName"})
	}
	for i := range e.Results {
		c.Enum(p, "shareID", e.Results[i].ShareID, []string{"", "set", "unset"})
		c.Vars(&e.Results[i].ConsumedCapacity)
		checkAbsent(c, p, "results", e.Results[i].Absent, resultFields, []string{"consumedCapacity", "device", "driver", "request", "shareID"})
	}
	if e.Only && e.Pod == "" {
		c.Problem(p, "", "only: says the claim is the one ever made for a pod: use pod:")
	}
	if e.Mapping != nil && e.Pod == "" {
		c.Problem(p, "", "mapping: is checked on a pod's status: use pod:")
	}
}

// The fields absent: may name, read from the API types the claim is read
// as, so a misspelt name (which would be absent from every claim, and pass)
// is refused.
var (
	exactRequestFields = jsonFields(reflect.TypeFor[resourcev1.ExactDeviceRequest]())
	resultFields       = jsonFields(reflect.TypeFor[resourcev1.DeviceRequestAllocationResult]())
)

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// checkAbsent refuses a name the API type lacks, and one the step already
// sets a value for through its own key (absent and present at once).
func checkAbsent(c Checker, p spec.Pos, list string, absent, fields, own []string) {
	for _, f := range absent {
		switch {
		case !slices.Contains(fields, f):
			c.Problem(p, "one of: "+strings.Join(fields, ", "), "%s: absent: %q is no field of the API type, so it would be absent from every claim", list, f)
		case slices.Contains(own, f):
			c.Problem(p, "", "%s: absent: %q has its own key in expectClaim: say it there (null, or shareID: unset)", list, f)
		}
	}
}

// causeHistoryGone is the golden table's word for a case whose claim
// history the API server no longer holds.
const causeHistoryGone = "the API server no longer holds the claim events since the pod's creation"

// onlyClaim replays the claim events since the pod was created: the claim
// found must be the only one ever made for it. A scheduler that creates a
// claim at each attempt and deletes it when the attempt fails leaves one
// claim at the end, as a conformant one does; only the history shows the
// others (KEP-6406 Scalability: claim creation "unchanged in frequency from
// KEP-5004", which creates it once, at PreBind). Where the API server no
// longer holds that history (it keeps at least the last 75 s of events),
// nothing can tell, and the step does not apply rather than pass unmeasured.
func onlyClaim(ctx context.Context, env *Env, local string, claim *Created) error {
	pod, err := env.Lookup(spec.RefOf("Pod", local))
	if err != nil {
		return err
	}
	err = claimsSince(ctx, env, pod.Object.GetResourceVersion(), string(pod.Object.GetUID()), local, string(claim.Object.GetUID()))
	if errors.Is(err, errHistoryGone) {
		return &NotApplicable{Cause: causeHistoryGone, Reason: fmt.Sprintf("pod %s: whether it was given only one claim cannot be told: %v", local, err)}
	}
	return err
}
