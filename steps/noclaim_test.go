package steps_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

// ownedClaim is a claim owned by the pod with the given local name.
func ownedClaim(name, owner string) string {
	return `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ` + name + `
  ownerReferences: [{apiVersion: v1, kind: Pod, name: ` + owner + `, uid: ` + string(stepstest.UID("Pod", owner)) + `}]
`
}

// podWithClaims seeds pod p1 with the given status, a pod "other", and a
// claim owned by each of owners; it returns the claims by owner.
func podWithClaims(t *testing.T, status string, owners []string) (*stepstest.Fake, map[string]*steps.Created) {
	f := stepstest.New(t)
	f.SeedYAML("p1", podYAML("p1", "", status))
	f.AddYAML(podYAML("other", "", ""))
	claims := map[string]*steps.Created{}
	for _, owner := range owners {
		claims[owner] = f.AddYAML(ownedClaim("claim-"+owner, owner))
	}
	return f, claims
}

func TestExpectNoClaim(t *testing.T) {
	tests := []struct {
		name     string
		status   string
		claims   []string // owners of claims present from the start
		appears  string   // owner of a claim created after 100ms
		hold     time.Duration
		fails    []string
		deadline time.Duration // the step must end within this
	}{
		{name: "none"},
		{name: "only other pods' claims", claims: []string{"other"}},
		{name: "owned claim", claims: []string{"p1"}, fails: []string{"pod p1 must have no claim, but it owns [claim-p1]"}},
		{name: "status names a claim", status: "status: {extendedResourceClaimStatus: {resourceClaimName: p1-extended-resources-abc}}",
			fails: []string{"pod p1 must have no claim", "status.extendedResourceClaimStatus names claim", "p1-extended-resources-abc"}},
		{name: "none during the hold", hold: short, appears: "other"},
		{name: "claim appears during the hold", hold: 2 * time.Second, appears: "p1", deadline: time.Second,
			fails: []string{"claim late-p1 appeared for pod p1"}},
		{name: "owned claim before the hold", hold: 2 * time.Second, claims: []string{"p1"}, deadline: time.Second,
			fails: []string{"it owns [claim-p1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := podWithClaims(t, tt.status, tt.claims)
			if tt.appears != "" {
				f.Later(100*time.Millisecond, func() { f.AddYAML(ownedClaim("late-"+tt.appears, tt.appears)) })
			}
			start := time.Now()
			err := run(t, f, &steps.ExpectNoClaim{Spec: &spec.ExpectNoClaim{Pod: "p1", For: spec.Duration(tt.hold)}})
			check(t, err, tt.fails)
			if tt.deadline != 0 && time.Since(start) > tt.deadline {
				t.Errorf("took %s, want the failure reported at once", time.Since(start))
			}
		})
	}
}

// The pod may get its status written during the hold without any claim
// being created; the check after the hold sees it.
func TestExpectNoClaimStatusDuringHold(t *testing.T) {
	f := stepstest.New(t)
	p := f.SeedYAML("p1", podYAML("p1", "", ""))
	f.Later(50*time.Millisecond, func() {
		f.Modify(p, func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]any{"extendedResourceClaimStatus": map[string]any{"resourceClaimName": "x"}}
		})
	})
	mustFail(t, run(t, f, &steps.ExpectNoClaim{Spec: &spec.ExpectNoClaim{Pod: "p1", For: spec.Duration(short)}}),
		"status.extendedResourceClaimStatus names claim \"x\"")
}

func TestExpectNoClaimUnknownPod(t *testing.T) {
	f := stepstest.New(t)
	mustFail(t, run(t, f, &steps.ExpectNoClaim{Spec: &spec.ExpectNoClaim{Pod: "p9"}}), "pod/p9 was not created by this case")
}

// The claim history: scripted watches stand in for the API server's replay
// of claim events since the pod's resourceVersion, which the fake tracker
// does not keep. The step writes a marker claim, which the API server
// stores at resourceVersion 50; its event in the replay is the present.
const replayMarker = "draconform-replay-1"

type noClaimEverCase struct {
	name      string
	rv        string
	markerErr error
	bound     time.Duration // the step's context; default run's
	watches   []func(w *watch.FakeWatcher)
	fails     []string
	resumedAt string // the resourceVersion the second watch must start at
	measured  string // a measurement the step must record
}

func TestExpectNoClaimEver(t *testing.T) {
	for _, tt := range noClaimEverCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkNoClaimEver(t, tt)
		})
	}
}

// replayClaim is a claim event at resourceVersion rv; owner "" is no owner.
func replayClaim(t *testing.T, name, owner, rv string) *unstructured.Unstructured {
	c := stepstest.Obj(t, ownedClaim(name, owner))
	if owner == "" {
		c.SetOwnerReferences(nil)
	}
	c.SetResourceVersion(rv)
	return c
}

func replayBookmark(rv string) *unstructured.Unstructured {
	b := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim"}}
	b.SetResourceVersion(rv)
	return b
}

func noClaimEverCases(t *testing.T) []noClaimEverCase {
	claim := func(name, owner, rv string) *unstructured.Unstructured { return replayClaim(t, name, owner, rv) }
	marker := claim(replayMarker, "", "50")
	return []noClaimEverCase{
		{name: "no claim ever, the replay reaches the marker", rv: "41", watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
			w.Add(claim("claim-other", "other", "45"))
			w.Add(marker)
		}}},
		{name: "a bookmark at the marker is enough", rv: "41", watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
			w.Action(watch.Bookmark, replayBookmark("50"))
		}}},
		{name: "a replay that goes quiet before the marker", rv: "41", bound: 3 * time.Second,
			watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
				w.Add(claim("claim-other", "other", "45"))
			}},
			fails: []string{"pod p1: the replay of claim events since its creation (resourceVersion 41) did not reach the present",
				"the claim " + replayMarker + " written to mark it (resourceVersion 50) never came", "the last resourceVersion delivered was 45"}},
		{name: "a stale bookmark is not the present", rv: "41", watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
			w.Action(watch.Bookmark, replayBookmark("44"))
			w.Add(claim("p1-extended-resources-x", "p1", "48"))
			w.Add(marker)
		}}, fails: []string{"claim p1-extended-resources-x was created for it"}},
		{name: "a watch that ends early is resumed where it ended", rv: "41", resumedAt: "46", watches: []func(*watch.FakeWatcher){
			func(w *watch.FakeWatcher) { w.Add(claim("claim-other", "other", "46")); w.Stop() },
			func(w *watch.FakeWatcher) { w.Add(marker) },
		}},
		{name: "created and deleted before the step", rv: "41", watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
			c := claim("p1-extended-resources-x", "p1", "43")
			w.Add(c)
			w.Delete(c)
			w.Add(marker)
		}}, fails: []string{"pod p1 must never have had a claim, but claim p1-extended-resources-x was created for it"}},
		// A compacted history is no failure of the cluster's: the claims are
		// re-listed and watched again for a window in which a retrying
		// scheduler makes its claim, and that window decides.
		{name: "history compacted, no claim in the window after it", rv: "41", bound: 25 * time.Second, watches: []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
			w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 41 (900)"})
		}}, measured: "the claim events since its creation were compacted"},
		{name: "history compacted, a claim in the window after it", rv: "41", bound: 25 * time.Second, watches: []func(*watch.FakeWatcher){
			func(w *watch.FakeWatcher) {
				w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonGone, Message: "too old resource version: 41 (900)"})
			},
			func(w *watch.FakeWatcher) { w.Add(claim("p1-extended-resources-y", "p1", "910")) },
		}, fails: []string{"claim p1-extended-resources-y appeared for pod p1"}},
		{name: "the marker cannot be written", rv: "41", markerErr: apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, replayMarker, fmt.Errorf("denied")),
			fails: []string{"writing the claim that marks the present", "forbidden"}},
		{name: "no resourceVersion", fails: []string{"pod p1 has no resourceVersion from its creation"}},
	}
}

// replayAPI records what the step did to the fake API's claims: the
// marker it wrote, the claims it deleted, where each watch started.
type replayAPI struct {
	mu        sync.Mutex
	written   *unstructured.Unstructured
	deleted   []string
	startedAt []string
}

// install makes the fake API store the marker (or refuse it with
// tt.markerErr) and answer the n-th claim watch with tt.watches[n].
func (r *replayAPI) install(f *stepstest.Fake, tt noClaimEverCase) {
	f.Dyn.PrependReactor("create", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if tt.markerErr != nil {
			return true, nil, tt.markerErr
		}
		u := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		u.SetResourceVersion("50")
		r.mu.Lock()
		r.written = u
		r.mu.Unlock()
		return true, u, nil
	})
	f.Dyn.PrependReactor("delete", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r.mu.Lock()
		r.deleted = append(r.deleted, a.(k8stesting.DeleteAction).GetName())
		r.mu.Unlock()
		return true, nil, nil
	})
	f.Dyn.PrependWatchReactor("resourceclaims", func(a k8stesting.Action) (bool, watch.Interface, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.startedAt = append(r.startedAt, a.(k8stesting.WatchActionImpl).WatchRestrictions.ResourceVersion)
		w := watch.NewFakeWithChanSize(8, false)
		if n := len(r.startedAt) - 1; n < len(tt.watches) {
			tt.watches[n](w)
		}
		return true, w, nil
	})
}

func checkNoClaimEver(t *testing.T, tt noClaimEverCase) {
	f := stepstest.New(t)
	pod := stepstest.Obj(t, podYAML("p1", "", ""))
	pod.SetResourceVersion(tt.rv)
	f.Seed("p1", pod)
	r := &replayAPI{}
	r.install(f, tt)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if tt.bound != 0 {
		ctx, cancel = context.WithTimeout(context.Background(), tt.bound)
	}
	defer cancel()
	err := (&steps.ExpectNoClaim{Spec: &spec.ExpectNoClaim{Pod: "p1", Ever: true}}).Run(ctx, f.Env)
	check(t, err, tt.fails)
	if tt.measured != "" && !slices.ContainsFunc(f.Env.Measurements(), func(m string) bool { return strings.Contains(m, tt.measured) }) {
		t.Errorf("measurements %q do not say %q", f.Env.Measurements(), tt.measured)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if tt.rv != "" && len(r.startedAt) > 0 && r.startedAt[0] != tt.rv {
		t.Errorf("the claim watch started at resourceVersion %q, want the pod's %q", r.startedAt[0], tt.rv)
	}
	if tt.resumedAt != "" && (len(r.startedAt) < 2 || r.startedAt[1] != tt.resumedAt) {
		t.Errorf("watches started at %q, want the second at %q", r.startedAt, tt.resumedAt)
	}
	if written := r.written; written != nil {
		if l := written.GetLabels(); written.GetName() != replayMarker || l[steps.RunLabel] != stepstest.RunID || l[steps.CaseLabel] != stepstest.CaseHash || len(written.GetOwnerReferences()) != 0 {
			t.Errorf("the marker claim is %s with labels %v and owners %v: want %s, the case's labels, no owner", written.GetName(), l, written.GetOwnerReferences(), replayMarker)
		}
		if len(r.deleted) != 1 || r.deleted[0] != replayMarker {
			t.Errorf("deleted claims %q, want the marker %s deleted once the replay is over", r.deleted, replayMarker)
		}
	}
}

// within: a pod the scheduler keeps retrying owns a claim during each
// attempt; the step passes at the first moment, after the scheduler has
// reported the pod failing, that it owns none, and fails on a claim that
// stays or a status that names one.
func TestExpectNoClaimWithin(t *testing.T) {
	const failing = `status:
  conditions:
  - {type: PodScheduled, status: "False", reason: SchedulerError, message: "running PreBind plugin DynamicResources: nil or empty request mappings"}
`
	tests := []struct {
		name     string
		node     string
		status   string
		claims   []string // owners of claims present from the start
		goes     bool     // the pod's claim is deleted after 100ms
		appears  bool     // a claim of the pod is created after 100ms
		fails    string   // the pod is reported failing after 300ms
		within   time.Duration
		want     []string
		deadline time.Duration // the step must end within this
	}{
		{name: "none", status: failing, within: 5 * time.Second, deadline: time.Second},
		{name: "an attempt's claim goes", status: failing, claims: []string{"p1"}, goes: true, within: 5 * time.Second, deadline: 2 * time.Second},
		{name: "a claim that stays", status: failing, claims: []string{"p1", "other"}, within: 500 * time.Millisecond,
			want: []string{"pod p1 must come to own no claim", "still there after", "[claim-p1]"}},
		{name: "another pod's claim stays", status: failing, claims: []string{"other"}, within: 5 * time.Second, deadline: time.Second},
		{name: "status names a claim", status: failing + "  extendedResourceClaimStatus: {resourceClaimName: p1-extended-resources-abc}\n",
			within: 5 * time.Second, deadline: time.Second, want: []string{"status.extendedResourceClaimStatus names claim", "p1-extended-resources-abc"}},
		// The moment before the first attempt ends proves nothing: the
		// claim that attempt leaves behind may not exist yet.
		{name: "the first attempt's claim, made after the step began, stays", appears: true, fails: failing, within: time.Second,
			want: []string{"pod p1 must come to own no claim once the scheduler has failed it", "still there after", "[late-p1]"}},
		{name: "a claim made before the first failure is reported, that goes", claims: []string{"p1"}, goes: true, fails: failing, within: 5 * time.Second, deadline: 2 * time.Second},
		{name: "never reported failing", within: 500 * time.Millisecond,
			want: []string{"has not been reported failing to schedule", "no PodScheduled condition"}},
		{name: "bound", node: node1, status: failing, within: 5 * time.Second, deadline: time.Second,
			want: []string{"pod p1 was bound to node " + node1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			p := f.SeedYAML("p1", podYAML("p1", tt.node, tt.status))
			f.AddYAML(podYAML("other", "", ""))
			claims := map[string]*steps.Created{}
			for _, owner := range tt.claims {
				claims[owner] = f.AddYAML(ownedClaim("claim-"+owner, owner))
			}
			if tt.goes {
				f.Later(100*time.Millisecond, func() { f.Remove(claims["p1"]) })
			}
			if tt.appears {
				f.Later(100*time.Millisecond, func() { f.AddYAML(ownedClaim("late-p1", "p1")) })
			}
			if tt.fails != "" {
				f.Later(300*time.Millisecond, func() {
					f.Modify(p, func(u *unstructured.Unstructured) { u.Object["status"] = tree(t, tt.fails)["status"] })
				})
			}
			start := time.Now()
			err := run(t, f, &steps.ExpectNoClaim{Spec: &spec.ExpectNoClaim{Pod: "p1", Within: spec.Duration(tt.within)}})
			check(t, err, tt.want)
			if tt.deadline != 0 && time.Since(start) > tt.deadline {
				t.Errorf("took %s, want the step over within %s", time.Since(start), tt.deadline)
			}
		})
	}
}

// only: the claim a pod was given must be the only one ever made for it;
// one made and deleted by an earlier attempt shows only in the replay.
func TestExpectClaimOnly(t *testing.T) {
	tests := []struct {
		name    string
		earlier bool // a claim of p1 created and deleted before this one
		gone    bool // the API server no longer holds the history
		fails   []string
		na      string
	}{
		{name: "one claim, made once"},
		{name: "an earlier claim made and deleted", earlier: true,
			fails: []string{"pod p1 must have been given one claim, once, but claim p1-extended-resources-old was created for it", "its uid uid-old"}},
		{name: "history gone", gone: true, na: "whether it was given only one claim cannot be told"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			f.SeedYAML("gpu", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "+stepstest.Prefix+"-gpu}")
			pod := stepstest.Obj(t, synthPod)
			pod.SetResourceVersion("41")
			f.Seed("p1", pod)
			kept := f.Add(stepstest.Obj(t, synthClaim)).Object.DeepCopy()
			kept.SetResourceVersion("47")
			watches := []func(*watch.FakeWatcher){func(w *watch.FakeWatcher) {
				if tt.gone {
					w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 41 (900)"})
					return
				}
				if tt.earlier {
					old := replayClaim(t, "p1-extended-resources-old", "p1", "43")
					old.SetUID("uid-old")
					w.Add(old)
					w.Delete(old)
				}
				w.Add(kept)
				w.Modify(kept)
				w.Add(replayClaim(t, replayMarker, "", "50"))
			}}
			(&replayAPI{}).install(f, noClaimEverCase{watches: watches})
			// Only the replay (from the pod's resourceVersion) is scripted;
			// the claim's own watch, while it is matched, is the fake's.
			f.Dyn.PrependWatchReactor("resourceclaims", func(a k8stesting.Action) (bool, watch.Interface, error) {
				if a.(k8stesting.WatchActionImpl).WatchRestrictions.ResourceVersion == "41" {
					return false, nil, nil
				}
				w, err := f.Dyn.Tracker().Watch(a.GetResource(), a.GetNamespace())
				return true, w, err
			})
			err := run(t, f, &steps.ExpectClaim{Spec: &spec.ExpectClaim{Pod: "p1", Only: true, Within: spec.Duration(300 * time.Millisecond),
				Results: []spec.ClaimResult{{Request: "container-0-request-0", Device: "gpu-0"}}}})
			if tt.na != "" {
				na, ok := steps.AsNotApplicable(err)
				if !ok || !strings.Contains(na.Reason, tt.na) {
					t.Fatalf("err %v: want not applicable, saying %q", err, tt.na)
				}
				return
			}
			check(t, err, tt.fails)
		})
	}
}
