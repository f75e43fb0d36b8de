// Package cluster is the one interface every step acts on. Providers (the
// embedded local control plane, any kubeconfig, kind) hide behind it, so a
// step never knows which one runs. contract.go holds the whole contract:
// what every provider and cluster implements, what each may add, and what a
// provider can do as data (Info).
package cluster

import (
	"fmt"
	"sort"
	"strings"
)

// Component names a control-plane component whose feature gates a cell sets.
type Component string

const (
	APIServer         Component = "kube-apiserver"
	Scheduler         Component = "kube-scheduler"
	ControllerManager Component = "kube-controller-manager"
)

// A node's components, whose logs TailLog reads where a provider runs them.
const (
	Kubelet    Component = "kubelet"
	Containerd Component = "containerd"
)

// Components lists every control-plane component in start order.
var Components = []Component{APIServer, Scheduler, ControllerManager}

// Gates holds explicit feature-gate settings for one component. A gate that is
// absent keeps the binary's default.
type Gates map[string]bool

// Equal says whether two components run with the same explicit gates;
// nil and empty are the same.
func (g Gates) Equal(o Gates) bool {
	if len(g) != len(o) {
		return false
	}
	for k, v := range g {
		if w, ok := o[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Flag renders the gates as a --feature-gates value, sorted so that the same
// gates always give the same command line.
func (g Gates) Flag() string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%t", k, g[k]))
	}
	return strings.Join(parts, ",")
}

// GateState is the explicit gates of every component.
type GateState map[Component]Gates

// Clone returns a deep copy, so a provider can keep its own state.
func (s GateState) Clone() GateState {
	if s == nil {
		return nil // unknown stays unknown
	}
	out := GateState{}
	for c, g := range s {
		cp := Gates{}
		for k, v := range g {
			cp[k] = v
		}
		out[c] = cp
	}
	return out
}

// Run is one run of a component.
type Run struct {
	// ID names the run (a process ID, a container ID); a new run has a new one.
	ID      string
	Running bool
	// Log is what this run has logged, at most its last few MiB.
	Log string
}

// Binary is one binary a cluster runs.
type Binary struct {
	Component Component
	Path      string
	// Version is the first line the binary prints for --version.
	Version string
}

// Latency is the time a scheduler spent on Pods pods, from each one's
// first entry into its queue to its binding.
type Latency struct {
	Pods    int     `json:"pods"`
	Seconds float64 `json:"seconds"`
}
