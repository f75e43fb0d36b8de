// Package steps turns each YAML step into a small type that acts on one
// cluster.Cluster through an Env. Steps never know which provider runs.
package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// Labels every object draconform creates carries, so that it deletes only
// what it made and `draconform cleanup` can find a killed run's leftovers.
const (
	RunLabel  = "draconform.dev/run"
	CaseLabel = "draconform.dev/case"
	// TaintKey keeps real workloads off the Node objects the suite creates;
	// only draconform's pods tolerate it.
	TaintKey = "draconform.dev/run"
)

// Clients are the API clients of one cluster, shared by the cases on it.
type Clients struct {
	Config *rest.Config
	Kube   kubernetes.Interface
	Dyn    dynamic.Interface
	Mapper meta.RESTMapper
	// NewDynamic builds a client whose requests report warnings to h; writes
	// use it to check what the API server warned about.
	NewDynamic func(h rest.WarningHandler) (dynamic.Interface, error)
	// Logs reads a container's log; nil reads it through Kube. The fakes
	// set it, since client-go's fake serves one fixed text for every log.
	Logs func(ctx context.Context, namespace, pod, container string) (string, error)
}

// Env is what a step acts on: one case instance on one cluster.
type Env struct {
	Cluster   cluster.Cluster
	Clients   *Clients
	Namespace string
	RunID     string
	CaseHash  string
	// BaseGates are the cell's gates, restored after a restart step.
	BaseGates cluster.GateState
	Fixtures  map[string]*spec.Fixture
	Log       io.Writer

	// pinPods keeps the case's pods to its own Nodes (see guard).
	pinPods bool
	// logsGranted: grantLogs ran (see logaccess.go).
	logsGranted bool
	vars        caseVars
	mu          sync.Mutex
	objects     map[spec.Ref]*Created
	cleanup     []cleanupFn
	// classVersions are the extendedResourceCapacityRequests.requests of
	// every DeviceClass version the case wrote, by class name (nil where a
	// version had none): a claim synthesized before an update carries one
	// of them.
	classVersions map[string][]map[string]any
	measurements  []string
	// probes counts the case's class barriers, which name their objects.
	probes int
	// baseReleased is, per component a restart step moved to another
	// binary, whether it ran from the released one before the case's first
	// such step: the binary the case gives back.
	baseReleased map[cluster.Component]bool
}

// EnvConfig is what a case instance starts from; NewEnv derives its names
// and variable scopes, for the runner and the step tests alike.
type EnvConfig struct {
	Cluster  cluster.Cluster
	Clients  *Clients
	RunID    string
	CaseHash string
	// BaseGates are the cell's gates, restored after a restart step.
	BaseGates cluster.GateState
	// ProfileVars are the driver profile's (spec.ProfileVarNames), between
	// the builtins and the suite's vars.
	ProfileVars         spec.Vars
	SuiteVars, CaseVars spec.Vars
	Fixtures            map[string]*spec.Fixture
	Log                 io.Writer
	// FakeNodes says the case creates its own Nodes (no kubelet behind
	// them): its pods may land on those only, never on a Node of the
	// cluster's.
	FakeNodes bool
}

// NewEnv builds a case instance: a prefix unique to the run and the case
// (cell included in the hash) names its namespace, its driver and domain,
// and every cluster-scoped object; the builtins, then the suite's and the
// case's vars, make its scope.
func NewEnv(c EnvConfig) (*Env, error) {
	prefix := fmt.Sprintf("dc-%s-%s", c.RunID, c.CaseHash)
	domain := prefix + ".draconform.test"
	base := spec.NewScope(map[string]string{
		"prefix": prefix, "domain": domain, "driver": domain, "namespace": prefix, "run": c.RunID,
	})
	scope, err := base.With(c.ProfileVars)
	if err == nil {
		scope, err = scope.With(c.SuiteVars)
	}
	if err == nil {
		scope, err = scope.With(c.CaseVars)
	}
	if err != nil {
		return nil, fmt.Errorf("variables: %w", err)
	}
	declared := map[string]bool{}
	for _, vars := range []spec.Vars{c.SuiteVars, c.CaseVars} {
		for k := range vars {
			declared[k] = true
		}
	}
	return &Env{
		Cluster: c.Cluster, Clients: c.Clients, Namespace: prefix, RunID: c.RunID, CaseHash: c.CaseHash,
		BaseGates: c.BaseGates, Fixtures: c.Fixtures, Log: c.Log, pinPods: c.FakeNodes,
		vars: caseVars{prefix: prefix, builtins: base, scope: scope, declared: declared},
	}, nil
}

// caseVars are a case instance's variable scopes.
type caseVars struct {
	prefix string
	// builtins holds the names NewEnv derives: fixtures see nothing else
	// but their params. scope adds the suite's and the case's vars, for
	// inline objects, patches and steps; declared names those vars.
	builtins *spec.Scope
	scope    *spec.Scope
	declared map[string]bool
}

// Scope is the case's variable scope: builtins, the suite's vars, then the
// case's.
func (e *Env) Scope() *spec.Scope { return e.vars.scope }

// Prefix names everything the case instance creates.
func (e *Env) Prefix() string { return e.vars.prefix }

// Measure records a figure a step measured, for the report.
func (e *Env) Measure(text string) {
	e.logf("measured: %s", text)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.measurements = append(e.measurements, text)
}

// nextProbe numbers a class barrier of the case.
func (e *Env) nextProbe() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.probes++
	return e.probes
}

// Measurements are the figures the case's steps measured, in order.
func (e *Env) Measurements() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.measurements...)
}

// Created is an object a step wrote, under its local ref.
type Created struct {
	GVR        schema.GroupVersionResource
	Namespaced bool
	Object     *unstructured.Unstructured
}

// Resource is the client for c's kind, scoped to its namespace if it has one.
func (c *Created) Resource(dyn dynamic.Interface) dynamic.ResourceInterface {
	if c.Namespaced {
		return dyn.Resource(c.GVR).Namespace(c.Object.GetNamespace())
	}
	return dyn.Resource(c.GVR)
}

type cleanupFn struct {
	what string
	fn   func(context.Context) error
	// inNamespace marks the removal of the case's namespace or of an
	// object in it, which a failed case may keep (--keep-on-failure):
	// nothing outside the namespace depends on it.
	inNamespace bool
}

// Remember records an object under its ref for later steps.
func (e *Env) Remember(ref spec.Ref, c *Created) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.objects == nil {
		e.objects = map[spec.Ref]*Created{}
	}
	e.objects[ref] = c
}

// recordClassVersion keeps what a DeviceClass the case wrote asked for.
func (e *Env) recordClassVersion(class *unstructured.Unstructured) {
	requests, _, _ := unstructured.NestedMap(class.Object, "spec", "extendedResourceCapacityRequests", "requests")
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.classVersions == nil {
		e.classVersions = map[string][]map[string]any{}
	}
	e.classVersions[class.GetName()] = append(e.classVersions[class.GetName()], requests)
}

// ClassVersions lists the capacity requests of every version the case
// wrote of a class, oldest first.
func (e *Env) ClassVersions(name string) []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.classVersions[name]...)
}

// Lookup finds an object of the case by ref.
func (e *Env) Lookup(ref spec.Ref) (*Created, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.objects[ref]
	if !ok {
		return nil, fmt.Errorf("%s was not created by this case (did its create step fail?)", ref)
	}
	return c, nil
}

// Objects lists what the case created, for diagnostics.
func (e *Env) Objects() map[spec.Ref]*Created {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[spec.Ref]*Created, len(e.objects))
	for k, v := range e.objects {
		out[k] = v
	}
	return out
}

// Defer registers work for the end of the case, run last-in first-out.
func (e *Env) Defer(what string, fn func(context.Context) error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanup = append(e.cleanup, cleanupFn{what: what, fn: fn})
}

// DeferInNamespace registers the removal of the case's namespace or of an
// object in it: clean-up that RunCleanupKeeping leaves undone.
func (e *Env) DeferInNamespace(what string, fn func(context.Context) error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanup = append(e.cleanup, cleanupFn{what: what, fn: fn, inNamespace: true})
}

// RunCleanup runs deferred work, newest first, and reports every failure.
func (e *Env) RunCleanup(ctx context.Context) error {
	_, err := e.runCleanup(ctx, false)
	return err
}

// RunCleanupKeeping runs deferred work as RunCleanup does but leaves the
// case's namespace and the objects in it, for a person to look at a failed
// case; what must be undone for later cases on the cluster (its
// cluster-scoped objects, gates restored, heartbeats stopped) still is. It
// returns what it left undone.
func (e *Env) RunCleanupKeeping(ctx context.Context) (kept []string, err error) {
	return e.runCleanup(ctx, true)
}

func (e *Env) runCleanup(ctx context.Context, keepNamespace bool) (kept []string, _ error) {
	e.mu.Lock()
	fns := e.cleanup
	e.cleanup = nil
	e.mu.Unlock()
	var errs []error
	for i := len(fns) - 1; i >= 0; i-- {
		if keepNamespace && fns[i].inNamespace {
			kept = append(kept, fns[i].what)
			continue
		}
		if err := e.retryOutage(ctx, fns[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", fns[i].what, err))
		}
	}
	return kept, errors.Join(errs...)
}

// cleanupRetry is how often clean-up work that met an API server outage is
// tried again, until ctx (the case's clean-up bound) ends.
const cleanupRetry = 2 * time.Second

// retryOutage runs fn, and again while the API server does not answer: a
// case that failed because the API server went away must still leave
// nothing behind once it is back.
func (e *Env) retryOutage(ctx context.Context, c cleanupFn) error {
	for attempt := 1; ; attempt++ {
		err := c.fn(ctx)
		if err == nil || !cluster.Unreachable(err) {
			return err
		}
		if attempt == 1 {
			e.logf("clean-up %q: the API server did not answer (%v); retrying every %s", c.what, err, cleanupRetry)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server did not answer for %d attempts until the clean-up bound: %w", attempt, err)
		case <-time.After(cleanupRetry):
		}
	}
}

// PodName resolves a pod's local name; pods live in the case namespace.
func (e *Env) PodName(local string) (string, error) {
	c, err := e.Lookup(spec.RefOf("Pod", local))
	if err != nil {
		return "", err
	}
	return c.Object.GetName(), nil
}

// NameOf resolves any ref to its actual object name.
func (e *Env) NameOf(ref spec.Ref) (string, error) {
	c, err := e.Lookup(ref)
	if err != nil {
		return "", err
	}
	return c.Object.GetName(), nil
}

func (e *Env) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}
