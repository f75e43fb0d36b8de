package steps

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/tools/spec"
)

// ExpectNoClaim asserts that no ResourceClaim belongs to a pod: none is owned
// by it and its status names none. With For, it keeps watching that long.
type ExpectNoClaim struct{ Spec *spec.ExpectNoClaim }

// Describe implements Step.
func (s *ExpectNoClaim) Describe() string { return "no claim exists for pod " + s.Spec.Pod }

// Run implements Step.
func (s *ExpectNoClaim) Run(ctx context.Context, env *Env) error {
	c, err := env.Lookup(spec.RefOf("Pod", s.Spec.Pod))
	if err != nil {
		return err
	}
	check := func() error {
		u, err := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace).Get(ctx, c.Object.GetName(), metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading pod %s: %w", s.Spec.Pod, err)
		}
		pod, err := toPod(u)
		if err != nil {
			return err
		}
		return noClaimFor(ctx, env, pod, s.Spec.Pod)
	}
	if err := check(); err != nil {
		return err
	}
	if s.Spec.For == 0 {
		return nil
	}
	uid := string(c.Object.GetUID())
	err = holdFor(ctx, env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace), "", time.Duration(s.Spec.For), func(u *unstructured.Unstructured) error {
		if ownedBy(u, uid) {
			return fmt.Errorf("claim %s appeared for pod %s", u.GetName(), s.Spec.Pod)
		}
		return notYet{"no claim"}
	})
	if err != nil {
		return err
	}
	return check()
}

func noClaimFor(ctx context.Context, env *Env, pod *corev1.Pod, local string) error {
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		return fmt.Errorf("pod %s must have no claim, but its status.extendedResourceClaimStatus names claim %q", local, st.ResourceClaimName)
	}
	owned, err := claimsOwnedBy(ctx, env, pod)
	if err != nil {
		return err
	}
	if len(owned) > 0 {
		names := make([]string, len(owned))
		for i := range owned {
			names[i] = owned[i].GetName()
		}
		return fmt.Errorf("pod %s must have no claim, but it owns %v", local, names)
	}
	return nil
}
