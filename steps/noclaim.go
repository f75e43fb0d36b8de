package steps

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/draconform/draconform/tools/lang/spec"
)

// ExpectNoClaim asserts that no ResourceClaim belongs to a pod: none is owned
// by it and its status names none. With For, it keeps watching that long.
// With Within, a claim owned by the pod may come and go, as each failed
// attempt of a scheduler that retries the pod creates one and deletes it:
// it waits for a moment, after the scheduler has reported the pod failing,
// when the pod owns none.
type ExpectNoClaim struct{ Spec *spec.ExpectNoClaim }

// Describe implements Step.
func (s *ExpectNoClaim) Describe() string {
	if s.Spec.Within != 0 {
		return "pod " + s.Spec.Pod + " comes to own no claim once the scheduler has failed it"
	}
	return "no claim exists for pod " + s.Spec.Pod
}

// Run implements Step.
func (s *ExpectNoClaim) Run(ctx context.Context, env *Env) error {
	c, err := env.Lookup(spec.RefOf("Pod", s.Spec.Pod))
	if err != nil {
		return err
	}
	uid := string(c.Object.GetUID())
	if s.Spec.Within != 0 {
		return s.comesToOwnNone(ctx, env, c.Object.GetName(), uid)
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
	hold := time.Duration(s.Spec.For)
	if s.Spec.Ever {
		err := noClaimSince(ctx, env, c.Object.GetResourceVersion(), uid, s.Spec.Pod)
		switch {
		case errors.Is(err, errHistoryGone):
			// The API server compacted the claim events since the pod's
			// creation (410): they cannot be replayed, and a conformant
			// cluster may compact when it likes. The claims were listed
			// above (none is the pod's, and its status names none); they
			// are watched again for a window in which a scheduler that
			// makes and drops a claim at each attempt makes one.
			hold = max(hold, historyGoneWindow)
			env.Measure(fmt.Sprintf("pod %s: the claim events since its creation were compacted (%v); re-listed, and watched for %s with no claim for it", s.Spec.Pod, err, hold))
		case err != nil:
			return err
		}
	}
	if hold == 0 {
		return nil
	}
	err = holdFor(ctx, env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace), "", hold, func(u *unstructured.Unstructured) error {
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

// comesToOwnNone is within: a moment when the pod owns no claim, after the
// scheduler has reported it failing at least once. A retrying scheduler
// may create a claim in each attempt and delete it when the attempt fails
// (v1.37.2's PreBind does, register R7), so a claim seen is not yet a
// failure; but a moment before any attempt proves nothing, since a claim
// the first attempt will leave behind does not exist yet. kube-scheduler
// writes the pod's PodScheduled=False condition after the failed attempt
// has undone its work, so the claims are watched only from then on: what
// that attempt left is there, and the watch waits for a moment with none.
func (s *ExpectNoClaim) comesToOwnNone(ctx context.Context, env *Env, name, uid string) error {
	deadline := time.Now().Add(time.Duration(s.Spec.Within))
	err := watchPod(ctx, env, s.Spec.Pod, time.Duration(s.Spec.Within), func(pod *corev1.Pod) error {
		if pod.Spec.NodeName != "" {
			return fmt.Errorf("pod %s was bound to node %s; within: is for a pod the scheduler keeps failing", s.Spec.Pod, pod.Spec.NodeName)
		}
		if err := noClaimInStatus(pod, s.Spec.Pod); err != nil {
			return err
		}
		if c := podScheduledCondition(pod); c == nil || c.Status != corev1.ConditionFalse {
			return notYet{"pod " + s.Spec.Pod + " has not been reported failing to schedule, so no attempt has ended yet; " + schedulingState(pod)}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pod %s must come to own no claim once the scheduler has failed it: %w", s.Spec.Pod, err)
	}
	err = watchUntilNone(ctx, env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace), time.Until(deadline),
		func(u *unstructured.Unstructured) bool { return ownedBy(u, uid) })
	if err != nil {
		return fmt.Errorf("pod %s must come to own no claim once the scheduler has failed it (a retried attempt's claim may come and go): %w", s.Spec.Pod, err)
	}
	u, err := env.Clients.Dyn.Resource(podGVR).Namespace(env.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading pod %s: %w", s.Spec.Pod, err)
	}
	pod, err := toPod(u)
	if err != nil {
		return err
	}
	return noClaimInStatus(pod, s.Spec.Pod)
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

// errHistoryGone is noClaimSince's answer when the API server no longer
// holds the claim events since the pod's creation (410 Gone / Expired).
var errHistoryGone = errors.New("the API server's watch history no longer reaches back to the pod's creation")

// historyGoneWindow is how long the claims are watched in place of a
// replay the API server compacted: longer than kube-scheduler's maximum
// backoff (10 s), so that a scheduler retrying the pod tries at least once.
const historyGoneWindow = 15 * time.Second

// replayBound bounds how long noClaimSince waits for the replay of claim
// events to reach the present. The API server sends the history at once.
const replayBound = 15 * time.Second

// replayWatchSeconds is the timeoutSeconds of each replaying watch: one
// that ends is resumed from the last resourceVersion it delivered, and an
// API server that sends bookmarks before a watch's deadline says sooner
// how far it got.
const replayWatchSeconds int64 = 4

// noClaimSince replays the claim events of the namespace from the pod's
// creation: a claim created for the pod and deleted again before this step
// (a scheduler that creates the claim, fails, and lets the next attempt
// clean up) is invisible to a list, but not to the watch history. The
// replay passes only once it has reached the present, which it learns by
// writing a claim of its own (owned by nothing, asking for nothing, deleted
// at once): a watch delivers the events of a resource in order, so once the
// marker's event (or a bookmark at or past it) arrives, every claim event
// before it has been seen. A watch that merely went quiet, or an API
// server that sends no bookmark, may not have delivered everything yet;
// v1.37.2's watch cache sends none to a watch whose start is newer than the
// last claim event it saw, so a bookmark alone could not say.
func noClaimSince(ctx context.Context, env *Env, podRV, uid, local string) error {
	return claimsSince(ctx, env, podRV, uid, local, "")
}

// claimsSince is noClaimSince that lets one claim, the one whose UID is
// keep, belong to the pod: the claim it was given, which must be the only
// one ever made for it.
func claimsSince(ctx context.Context, env *Env, podRV, uid, local, keep string) error {
	if podRV == "" {
		return fmt.Errorf("pod %s has no resourceVersion from its creation to replay claim events from", local)
	}
	ri := env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace)
	marker, err := writeReplayMarker(ctx, env, ri)
	if err != nil {
		return fmt.Errorf("pod %s: writing the claim that marks the present for the replay of claim events: %w", local, err)
	}
	defer func() {
		if derr := ri.Delete(context.WithoutCancel(ctx), marker.GetName(), metav1.DeleteOptions{}); derr != nil && !apierrors.IsNotFound(derr) {
			env.logf("deleting the replay marker claim %s: %v (the case's clean-up deletes it)", marker.GetName(), derr)
		}
	}()
	rctx, cancel := context.WithTimeout(ctx, replayBound)
	defer cancel()
	r := replay{uid: uid, keep: keep, local: local, podRV: podRV, marker: marker}
	r.present, r.ordered = revision(marker.GetResourceVersion())
	from := podRV
	for {
		secs := replayWatchSeconds
		w, err := ri.Watch(rctx, metav1.ListOptions{ResourceVersion: from, AllowWatchBookmarks: true, TimeoutSeconds: &secs})
		if err != nil {
			if rctx.Err() != nil {
				return r.notReached(ctx)
			}
			if gone(err) {
				return fmt.Errorf("%w (from resourceVersion %s: %v)", errHistoryGone, from, err)
			}
			return fmt.Errorf("replaying claim events since pod %s was created: %w", local, err)
		}
		before := r.last
		reached, err := r.read(rctx, w)
		w.Stop()
		switch {
		case err != nil:
			return err
		case reached:
			return nil
		case rctx.Err() != nil:
			return r.notReached(ctx)
		}
		if r.last == before {
			// Nothing new from that watch: do not hammer the API server
			// with watches it ends at once.
			select {
			case <-rctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
		if r.last != "" {
			from = r.last
		}
	}
}

// writeReplayMarker creates the claim whose event marks the present in
// the replay, labelled as the case's objects are; the case's namespace
// goes with it should the step not get to delete it.
func writeReplayMarker(ctx context.Context, env *Env, ri dynamic.ResourceInterface) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ClaimGVR.GroupVersion().String(), "kind": "ResourceClaim",
		"metadata": map[string]any{
			"name":   fmt.Sprintf("draconform-replay-%d", env.nextProbe()),
			"labels": map[string]any{RunLabel: env.RunID, CaseLabel: env.CaseHash},
		},
		"spec": map[string]any{},
	}}
	return ri.Create(ctx, u, metav1.CreateOptions{})
}

// replay is what noClaimSince has seen so far.
type replay struct {
	uid, local, podRV string
	// keep is the UID of the one claim the pod may own ("" for none).
	keep   string
	marker *unstructured.Unstructured
	// present is the marker's resourceVersion, where it is a number that
	// orders events (ordered); a bookmark at or past it reaches it too.
	present uint64
	ordered bool
	// last is the resourceVersion of the newest event or bookmark seen.
	last string
}

// read consumes one watch: reached says the marker's event, or a bookmark
// past it, came, after every event before it was checked.
func (r *replay) read(ctx context.Context, w watch.Interface) (reached bool, err error) {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil // timed out or closed: resume from r.last
			}
			if ev.Type == watch.Error {
				if err := apierrors.FromObject(ev.Object); gone(err) {
					return false, fmt.Errorf("%w (from resourceVersion %s: %v)", errHistoryGone, r.podRV, err)
				}
				return false, fmt.Errorf("replaying claim events since pod %s was created (resourceVersion %s): %w", r.local, r.podRV, apierrors.FromObject(ev.Object))
			}
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				return false, fmt.Errorf("replaying claim events since pod %s was created: a %s event without metadata: %w", r.local, ev.Type, err)
			}
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != watch.Bookmark && ownedBy(u, r.uid) && (r.keep == "" || string(u.GetUID()) != r.keep) {
				verb := "was created for it"
				if ev.Type != watch.Added {
					verb = "belonged to it (" + string(ev.Type) + ")"
				}
				must := "must never have had a claim"
				if r.keep != "" {
					must = "must have been given one claim, once"
				}
				return false, fmt.Errorf("pod %s %s, but claim %s %s (seen replaying the claim events since the pod was created%s)", r.local, must, u.GetName(), verb, uidNote(u))
			}
			if m.GetResourceVersion() != "" {
				r.last = m.GetResourceVersion()
			}
			if ev.Type != watch.Bookmark && r.isMarker(m) {
				return true, nil
			}
			if rv, ok := revision(m.GetResourceVersion()); ok && r.ordered && rv >= r.present {
				return true, nil
			}
		case <-ctx.Done():
			return false, nil
		}
	}
}

func (r *replay) isMarker(m metav1.Object) bool {
	if m.GetName() != r.marker.GetName() {
		return false
	}
	return r.marker.GetUID() == "" || m.GetUID() == r.marker.GetUID()
}

func (r *replay) notReached(parent context.Context) error {
	last := r.last
	if last == "" {
		last = "none"
	}
	err := fmt.Errorf("pod %s: the replay of claim events since its creation (resourceVersion %s) did not reach the present within %s: the claim %s written to mark it (resourceVersion %s) never came, and the last resourceVersion delivered was %s, so a claim made for the pod may not have been replayed", r.local, r.podRV, replayBound, r.marker.GetName(), r.marker.GetResourceVersion(), last)
	if parent.Err() != nil {
		return fmt.Errorf("%w (interrupted: %w)", err, parent.Err())
	}
	return err
}

// gone says whether the API server refused a watch because the events it
// asks for were compacted.
func gone(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// revision reads a resourceVersion as the etcd revision the API server
// makes it, which orders the events of one resource; ok is false for one
// that is no number.
func revision(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// uidNote names a claim's UID, which tells apart two claims of one name.
func uidNote(u *unstructured.Unstructured) string {
	if u.GetUID() == "" {
		return ""
	}
	return "; its uid " + string(u.GetUID())
}
