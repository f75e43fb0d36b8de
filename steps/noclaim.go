package steps

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/draconform/draconform/tools/spec"
)

// ExpectNoClaim asserts that no ResourceClaim belongs to a pod: none is owned
// by it and its status names none. With For, it keeps watching that long.
// With Within, a claim owned by the pod may come and go, as each failed
// attempt of a scheduler that retries the pod creates one and deletes it:
// it waits for a moment when the pod owns none.
type ExpectNoClaim struct{ Spec *spec.ExpectNoClaim }

// Describe implements Step.
func (s *ExpectNoClaim) Describe() string { return "no claim exists for pod " + s.Spec.Pod }

// Run implements Step.
func (s *ExpectNoClaim) Run(ctx context.Context, env *Env) error {
	c, err := env.Lookup(spec.RefOf("Pod", s.Spec.Pod))
	if err != nil {
		return err
	}
	uid := string(c.Object.GetUID())
	check := func() error {
		u, err := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace).Get(ctx, c.Object.GetName(), metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading pod %s: %w", s.Spec.Pod, err)
		}
		pod, err := toPod(u)
		if err != nil {
			return err
		}
		if s.Spec.Within == 0 {
			return noClaimFor(ctx, env, pod, s.Spec.Pod)
		}
		if err := noClaimInStatus(pod, s.Spec.Pod); err != nil {
			return err
		}
		// Listed again now, a claim could be the next attempt's: the
		// moment with none is the watch's.
		err = watchUntilNone(ctx, env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace), time.Duration(s.Spec.Within),
			func(u *unstructured.Unstructured) bool { return ownedBy(u, uid) })
		if err != nil {
			return fmt.Errorf("pod %s must come to own no claim (a retried attempt's claim may come and go): %w", s.Spec.Pod, err)
		}
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	if s.Spec.Ever {
		if err := noClaimSince(ctx, env, c.Object.GetResourceVersion(), uid, s.Spec.Pod); err != nil {
			return err
		}
	}
	if s.Spec.For == 0 {
		return nil
	}
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
	if err := noClaimInStatus(pod, local); err != nil {
		return err
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

func noClaimInStatus(pod *corev1.Pod, local string) error {
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		return fmt.Errorf("pod %s must have no claim, but its status.extendedResourceClaimStatus names claim %q", local, st.ResourceClaimName)
	}
	return nil
}

// checkExpectNoClaim refuses within: beside for: or ever:, which fail on
// the very claims within: lets come and go.
func checkExpectNoClaim(c Checker, st *spec.Step) {
	c.Need(st.Pos, spec.RefOf("Pod", st.ExpectNoClaim.Pod))
	if e := st.ExpectNoClaim; e.Within != 0 && (e.For != 0 || e.Ever) {
		c.Problem(st.Pos, "keep within: for a pod the scheduler retries, or for:/ever: for one that must never get a claim",
			"expectNoClaim: within: lets a claim come and go, so it cannot go with for: or ever:, which fail on any")
	}
}

// replayWindow bounds how long noClaimSince reads the replayed events; the
// API server sends the history at once, so this only has to outlast a
// loaded machine's delivery.
const replayWindow = 2 * time.Second

// noClaimSince replays the claim events of the namespace from the pod's
// creation: a claim created for the pod and deleted again before this step
// (a scheduler that creates the claim, fails, and lets the next attempt
// clean up) is invisible to a list, but not to the watch history.
func noClaimSince(ctx context.Context, env *Env, podRV, uid, local string) error {
	if podRV == "" {
		return fmt.Errorf("pod %s has no resourceVersion from its creation to replay claim events from", local)
	}
	w, err := env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: podRV})
	if err != nil {
		return fmt.Errorf("replaying claim events since pod %s was created: %w", local, err)
	}
	defer w.Stop()
	timer := time.NewTimer(replayWindow)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("replaying claim events since pod %s was created: the watch closed early", local)
			}
			if ev.Type == watch.Error {
				return fmt.Errorf("replaying claim events since pod %s was created (resourceVersion %s): %w; the API server's watch history may no longer reach back that far", local, podRV, apierrors.FromObject(ev.Object))
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if ok && ev.Type == watch.Added && ownedBy(u, uid) {
				return fmt.Errorf("pod %s must never have had a claim, but claim %s was created for it (seen replaying the claim events since the pod was created)", local, u.GetName())
			}
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
