package providers

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/cluster"
)

// Default is every provider --provider can name, one line each: a new
// provider adds its line here and nothing elsewhere (one with options of
// its own also gives them a field of Config, which its flags fill). Names,
// Known, Build, New, Embedded and --provider's help all read it, and the
// planner and the runner read what the built provider says of itself
// (cluster.Info); TestANewProviderIsOneLine in tools/runner/shards holds
// that to be so. A function, not a variable, so that no caller can change
// the table another sees.
func Default() Registry {
	return Registry{
		{Name: "local", Usage: "an embedded v1.37.2 control plane of real binaries", Embedded: true, Build: buildLocal},
		{Name: "prototype", Usage: "the same with the KEP-6406 prototype kube-apiserver and kube-scheduler", Embedded: true, Build: buildPrototype},
		{Name: prototypeStatic, Usage: "the prototype linked statically, as --kind-kep-bin-dir needs it", Embedded: true, Build: buildPrototype},
		{Name: "kubeconfig", Usage: "any cluster; cells that set gates are skipped", Build: buildKubeconfig},
		{Name: "kind", Usage: "kind clusters in Docker with the test driver, for cases that need a kubelet", Build: buildKind},
		{Family: prototypeFamily, Usage: "a known-broken variant of the prototype (see draconform mutation --list)", Embedded: true, Build: buildPrototype},
	}
}

// Entry is one line of the registry: a provider, or a family of them
// (the prototype's mutants and variants), by the names --provider takes.
type Entry struct {
	// Name is the one name --provider gives the provider; a family lists
	// its names with Family instead.
	Name   string
	Family func() []string
	// Usage says what the provider is, for --provider's help.
	Usage string
	// Embedded: the provider's nodes run the container runtime
	// EnsureRuntime builds, which a run builds beside the providers.
	Embedded bool
	// Build builds (or finds) what the provider named c.Name runs and
	// returns how to construct it (see Build).
	Build func(ctx context.Context, c Config) (*Built, error)
}

// Simple is the entry of a provider with nothing to build and no options
// of its own: newProvider gets the run's output folder for the provider
// and its log.
func Simple(name, usage string, newProvider func(outDir string, log io.Writer) (cluster.Provider, error)) Entry {
	return Entry{Name: name, Usage: usage, Build: func(_ context.Context, c Config) (*Built, error) {
		return built(c, func() (cluster.Provider, error) { return newProvider(c.OutDir, c.Log) }), nil
	}}
}

func (e Entry) names() []string {
	if e.Family != nil {
		return e.Family()
	}
	return []string{e.Name}
}

// Registry is the providers a run may name, in the order --provider's
// help and Names list them.
type Registry []Entry

// Names lists every name --provider accepts, so that a command line can
// refuse a misspelt one before it builds anything.
func (r Registry) Names() []string {
	var names []string
	for _, e := range r {
		for _, n := range e.names() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// Known says whether Build accepts name.
func (r Registry) Known(name string) bool { return r.entry(name) != nil }

func (r Registry) entry(name string) *Entry {
	for i := range r {
		if slices.Contains(r[i].names(), name) {
			return &r[i]
		}
	}
	return nil
}

// Usage is --provider's help: each provider's name and what it is.
func (r Registry) Usage() string {
	var parts []string
	for _, e := range r {
		if e.Name != "" {
			parts = append(parts, e.Name+" ("+e.Usage+")")
		} else {
			parts = append(parts, e.Usage)
		}
	}
	if n := len(parts); n > 1 {
		parts[n-1] = "or " + parts[n-1]
	}
	return "comma-separated implementations to test: " + strings.Join(parts, ", ")
}

// Build builds, or finds in the cache, what the provider c names runs (the
// Kubernetes binaries, the prototype's patched build, a directory of
// binaries checked), and checks what it needs (a Docker engine for kind).
// It is the only part of making a provider that takes minutes, so callers
// do it first and visibly. The node's container runtime is built when a
// cell first adds a node.
func (r Registry) Build(ctx context.Context, c Config) (*Built, error) {
	if c.Name == "" {
		c.Name = "local"
	}
	e := r.entry(c.Name)
	if e == nil {
		return nil, fmt.Errorf("unknown provider %q (%s)", c.Name, strings.Join(r.Names(), ", "))
	}
	return e.Build(ctx, c)
}

// New builds and constructs the provider c names, for callers that need
// both at once.
func (r Registry) New(ctx context.Context, c Config) (cluster.Provider, error) {
	b, err := r.Build(ctx, c)
	if err != nil {
		return nil, err
	}
	return b.New()
}

// Embedded says whether any of cfgs names an embedded provider, whose
// nodes run the container runtime EnsureRuntime builds.
func (r Registry) Embedded(cfgs []Config) bool {
	for _, c := range cfgs {
		if e := r.entry(c.Name); e != nil && e.Embedded {
			return true
		}
	}
	return false
}

// Names lists every name the default registry's --provider accepts.
func Names() []string { return Default().Names() }

// Known says whether the default registry builds name.
func Known(name string) bool { return Default().Known(name) }

// Usage is --provider's help, from the default registry.
func Usage() string { return Default().Usage() }

// Build builds the provider c names from the default registry.
func Build(ctx context.Context, c Config) (*Built, error) { return Default().Build(ctx, c) }

// New builds and constructs the provider c names from the default
// registry.
func New(ctx context.Context, c Config) (cluster.Provider, error) { return Default().New(ctx, c) }

// Embedded says whether any of cfgs is an embedded provider of the
// default registry.
func Embedded(cfgs []Config) bool { return Default().Embedded(cfgs) }
