package steps

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// errNotYet tells the watch loop the condition does not hold yet; its text is
// what a timeout reports, so it says what was last seen.
type notYet struct{ msg string }

func (n notYet) Error() string { return n.msg }

// watchUntil watches the object of ri called name (every object if name is
// empty) and calls
// check with each new version until it returns nil (met), a non-notYet error
// (failed for good), or the deadline passes. Waiting is driven by the watch,
// not by sleeping, so a condition that is met is seen at once.
func watchUntil(ctx context.Context, ri dynamic.ResourceInterface, name string, within time.Duration, check func(*unstructured.Unstructured) error) error {
	return watchObjects(ctx, ri, name, within, false, check)
}

// holdFor watches like watchUntil but for the whole duration: it fails as
// soon as check returns a hard error and succeeds when the time runs out.
// check returns notYet while everything is as it must stay. A hold on a
// named object also fails when the object is not there at the start or is
// deleted during the hold: a pod that is gone is not a pod that stayed
// pending, and check never sees a deletion to judge it.
func holdFor(ctx context.Context, ri dynamic.ResourceInterface, name string, d time.Duration, check func(*unstructured.Unstructured) error) error {
	return watchObjects(ctx, ri, name, d, true, check)
}

func watchObjects(ctx context.Context, ri dynamic.ResourceInterface, name string, within time.Duration, timeoutIsSuccess bool, check func(*unstructured.Unstructured) error) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	w := &objectWatch{name: name, within: within, timeoutIsSuccess: timeoutIsSuccess, check: check,
		last: notYet{"no object seen"}}
	lw := w.listWatch(ri)
	w.began = time.Now()
	_, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, w.precondition, w.condition)
	w.addPhases(parent)
	return w.verdict(parent, ctx, err)
}

// addPhases splits the watch's time for the case's benchmark: its list
// and sync, then the wait (or hold) on a synced view.
func (w *objectWatch) addPhases(ctx context.Context) {
	w.mu.Lock()
	syncedAt := w.syncedAt
	w.mu.Unlock()
	if syncedAt.IsZero() {
		AddPhase(ctx, PhaseWatchSetup, time.Since(w.began))
		return
	}
	AddPhase(ctx, PhaseWatchSetup, syncedAt.Sub(w.began))
	part := PhaseWaiting
	if w.timeoutIsSuccess {
		part = PhaseHolds
	}
	AddPhase(ctx, part, time.Since(syncedAt))
}

// objectWatch is one watchObjects: what it watches for, and what its list,
// precondition and condition saw. UntilWithSync runs those while
// watchObjects waits in it; the verdict reads what they saw after it
// returns.
type objectWatch struct {
	name             string
	within           time.Duration
	timeoutIsSuccess bool
	check            func(*unstructured.Unstructured) error
	began            time.Time

	mu      sync.Mutex
	last    error
	failed  error
	listed  bool
	listErr error
	// The informer syncs before any condition runs: a hold whose initial
	// state never arrived saw nothing, and must not pass for one that held.
	synced   bool
	syncedAt time.Time
}

// namedHold: a hold on one object, which must exist throughout.
func (w *objectWatch) namedHold() bool { return w.timeoutIsSuccess && w.name != "" }

// listWatch lists and watches ri, by name if there is one, and records
// whether a list succeeded, which the verdict needs.
func (w *objectWatch) listWatch(ri dynamic.ResourceInterface) *cache.ListWatch {
	fieldSelector := ""
	if w.name != "" {
		fieldSelector = fields.OneTermEqualSelector("metadata.name", w.name).String()
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = fieldSelector
			list, err := ri.List(ctx, o)
			w.mu.Lock()
			defer w.mu.Unlock()
			if err != nil {
				w.listErr = err
			} else {
				w.listed = true
			}
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = fieldSelector
			return ri.Watch(ctx, o)
		},
	}
}

// precondition runs once the informer has synced: a named hold fails at
// once when its object is not there.
func (w *objectWatch) precondition(store cache.Store) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.synced, w.syncedAt = true, time.Now()
	if !w.namedHold() {
		return false, nil
	}
	for _, o := range store.List() {
		if u, ok := o.(*unstructured.Unstructured); ok && u.GetName() == w.name {
			return false, nil
		}
	}
	w.failed = fmt.Errorf("%s does not exist, so it cannot stay as it must for %s", w.name, w.within)
	return false, w.failed
}

// condition judges one event: check's answer for a new version, a
// deletion as the end of a named hold or as not yet met otherwise.
func (w *objectWatch) condition(ev watch.Event) (bool, error) {
	u, ok := ev.Object.(*unstructured.Unstructured)
	// The API server filters by name; checking again keeps fakes honest.
	if !ok || (w.name != "" && u.GetName() != w.name) {
		return false, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.Type == watch.Deleted && w.namedHold() {
		w.failed = fmt.Errorf("%s was deleted %s into the %s it had to stay as it was: a deleted object does not hold", u.GetName(), time.Since(w.began).Round(100*time.Millisecond), w.within)
		return false, w.failed
	}
	if ev.Type == watch.Deleted {
		w.last = notYet{fmt.Sprintf("%s was deleted", u.GetName())}
		return false, nil
	}
	cerr := w.check(u)
	var ny notYet
	if errors.As(cerr, &ny) {
		w.last = cerr
		return false, nil
	}
	w.failed = cerr
	return cerr == nil, cerr
}

// verdict turns how UntilWithSync ended (err), under the caller's context
// (parent) and the watch's own deadline (ctx), into watchObjects' answer.
func (w *objectWatch) verdict(parent, ctx context.Context, err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		return nil
	case w.failed != nil:
		return w.failed
	case parent.Err() != nil:
		return fmt.Errorf("interrupted (%v): %w", w.last, parent.Err())
	case !w.listed && w.listErr != nil:
		// A hold that never saw the object must not pass for a kept one.
		return fmt.Errorf("could not list within %s: %w", w.within, w.listErr)
	case w.timeoutIsSuccess && !w.synced:
		return fmt.Errorf("the watch never delivered the initial state within %s, so nothing was seen to hold: %w", w.within, w.last)
	case ctx.Err() != nil:
		if w.timeoutIsSuccess {
			return nil
		}
		return fmt.Errorf("not met within %s: %w", w.within, w.last)
	}
	return err
}

// watchUntilNone waits, by watch, for a moment when no object of ri
// matches: objects that come and go are let pass, one that stays is not.
// On timeout it names what still matched.
func watchUntilNone(ctx context.Context, ri dynamic.ResourceInterface, within time.Duration, match func(*unstructured.Unstructured) bool) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	// The informer's store holds every event it has handed on, so after
	// each one it is the namespace as of that event. Precondition and
	// conditions run in this goroutine.
	var store cache.Store
	var still []string
	none := func() bool {
		still = still[:0]
		for _, o := range store.List() {
			if u, ok := o.(*unstructured.Unstructured); ok && match(u) {
				still = append(still, u.GetName())
			}
		}
		sort.Strings(still)
		return len(still) == 0
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, o) },
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return ri.Watch(ctx, o)
		},
	}
	began, synced := time.Now(), time.Time{}
	_, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{},
		func(s cache.Store) (bool, error) { store, synced = s, time.Now(); return none(), nil },
		func(watch.Event) (bool, error) { return none(), nil })
	if synced.IsZero() {
		synced = time.Now()
	}
	AddPhase(parent, PhaseWatchSetup, synced.Sub(began))
	AddPhase(parent, PhaseWaiting, time.Since(synced))
	switch {
	case err == nil:
		return nil
	case parent.Err() != nil:
		return fmt.Errorf("interrupted (still there: %v): %w", still, parent.Err())
	case store == nil:
		return fmt.Errorf("could not list within %s: %w", within, err)
	case ctx.Err() != nil:
		return fmt.Errorf("still there after %s, through every change seen: %v", within, still)
	}
	return err
}

// WaitExists waits, by watch, until the named object exists.
func WaitExists(ctx context.Context, ri dynamic.ResourceInterface, name string, within time.Duration) error {
	return watchUntil(ctx, ri, name, within, func(*unstructured.Unstructured) error { return nil })
}
