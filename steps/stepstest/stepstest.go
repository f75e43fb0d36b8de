// Package stepstest builds a *steps.Env backed by client-go fakes, so the
// expectation steps can be proven to pass and to fail without a cluster.
package stepstest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientfeatures "k8s.io/client-go/features"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// The builtins of every fake case instance.
const (
	RunID     = "t"
	CaseHash  = "abc123"
	Prefix    = "dc-t-abc123"
	Domain    = Prefix + ".draconform.test"
	Driver    = Domain
	Namespace = Prefix
)

// kinds are the resources the fakes serve, with their list kinds and scope.
var kinds = []struct {
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
}{
	{corev1.SchemeGroupVersion.WithKind("Pod"), "pods", true},
	{corev1.SchemeGroupVersion.WithKind("Event"), "events", true},
	{corev1.SchemeGroupVersion.WithKind("ServiceAccount"), "serviceaccounts", true},
	{corev1.SchemeGroupVersion.WithKind("Node"), "nodes", false},
	{corev1.SchemeGroupVersion.WithKind("Namespace"), "namespaces", false},
	{resourceGV.WithKind("ResourceClaim"), "resourceclaims", true},
	{resourceGV.WithKind("DeviceClass"), "deviceclasses", false},
	{resourceGV.WithKind("ResourceSlice"), "resourceslices", false},
}

var resourceGV = schema.GroupVersion{Group: "resource.k8s.io", Version: "v1"}

// Fake is a case instance on fake clients.
type Fake struct {
	T      testing.TB
	Env    *steps.Env
	Dyn    *dynamicfake.FakeDynamicClient
	Kube   *kubefake.Clientset
	Mapper meta.RESTMapper

	mu       sync.Mutex
	warnings []string
	handler  rest.WarningHandler
	later    sync.WaitGroup
}

// Option changes how New builds the Env.
type Option func(*config)

type config struct {
	suiteVars, caseVars spec.Vars
	fakeNodes           bool
}

// FakeNodes makes the Env of a case that creates its own Nodes.
func FakeNodes() Option { return func(c *config) { c.fakeNodes = true } }

// SuiteVars sets the suite's variables, written as a YAML map.
func SuiteVars(src string) Option { return func(c *config) { c.suiteVars = varsOf(src) } }

// CaseVars sets the case's variables, written as a YAML map.
func CaseVars(src string) Option { return func(c *config) { c.caseVars = varsOf(src) } }

func varsOf(src string) spec.Vars {
	var v spec.Vars
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		panic(fmt.Sprintf("vars %q: %v", src, err))
	}
	return v
}

// New builds an Env on empty fakes, with the shipped fixtures.
func New(t testing.TB, opts ...Option) *Fake {
	t.Helper()
	gatesOnce.Do(func() { clientfeatures.ReplaceFeatureGates(noWatchList{clientfeatures.FeatureGates()}) })
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	listKinds := map[schema.GroupVersionResource]string{}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion, resourceGV})
	for _, k := range kinds {
		listKinds[k.gvk.GroupVersion().WithResource(k.resource)] = k.gvk.Kind + "List"
		scope := meta.RESTScopeRoot
		if k.namespaced {
			scope = meta.RESTScopeNamespace
		}
		mapper.Add(k.gvk, scope)
	}
	f := &Fake{
		T:      t,
		Dyn:    dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds),
		Kube:   kubefake.NewClientset(),
		Mapper: mapper,
	}
	f.Kube.PrependReactor("list", "events", f.listEvents)
	f.Dyn.PrependReactor("*", "*", f.warn)
	f.Dyn.PrependReactor("*", "*", f.mirror)
	env, err := steps.NewEnv(steps.EnvConfig{
		Clients: &steps.Clients{
			Config: &rest.Config{Host: "https://fake.invalid"},
			Kube:   f.Kube,
			Dyn:    f.Dyn,
			Mapper: mapper,
			NewDynamic: func(h rest.WarningHandler) (dynamic.Interface, error) {
				f.mu.Lock()
				defer f.mu.Unlock()
				f.handler = h
				return f.Dyn, nil
			},
		},
		RunID: RunID, CaseHash: CaseHash,
		SuiteVars: cfg.suiteVars, CaseVars: cfg.caseVars, FakeNodes: cfg.fakeNodes,
		Fixtures: Fixtures(t),
		Log:      logWriter{t},
	})
	if err != nil {
		t.Fatalf("stepstest: %v", err)
	}
	if env.Namespace != Namespace {
		t.Fatalf("stepstest: steps.NewEnv named the namespace %s, the fake expects %s", env.Namespace, Namespace)
	}
	f.Env = env
	t.Cleanup(f.later.Wait)
	return f
}

// The fake tracker answers a watch-list request (sendInitialEvents) with the
// objects but never with the bookmark that ends them, so a reflector in
// watch-list mode never syncs. The steps hand UntilWithSync a bare
// cache.ListWatch, which cannot say its client lacks the semantics, so the
// client-go gate is turned off for the test binary instead.
var gatesOnce sync.Once

type noWatchList struct{ clientfeatures.Gates }

func (g noWatchList) Enabled(key clientfeatures.Feature) bool {
	if key == clientfeatures.WatchListClient {
		return false
	}
	return g.Gates.Enabled(key)
}

var (
	bundleOnce sync.Once
	bundle     *loader.Bundle
	bundleErr  error
)

// Fixtures are the shipped fixtures, loaded once.
func Fixtures(t testing.TB) map[string]*spec.Fixture {
	t.Helper()
	bundleOnce.Do(func() { bundle, bundleErr = loader.Load(suites.FS, fixtures.FS, steps.Kinds()) })
	if bundleErr != nil {
		t.Fatalf("stepstest: loading the shipped suites and fixtures: %v", bundleErr)
	}
	return bundle.Fixtures
}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
