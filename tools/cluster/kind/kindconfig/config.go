// Package kindconfig turns a gate cell (suites/cells.yaml) into a kind
// cluster configuration, in kind's own v1alpha4 Go types, so that the kind
// provider and the checked-in kind-configs/<cell>.yaml come from one place
// and kind's decoder, not a copy of its schema, is what they must satisfy.
package kindconfig

import (
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/defaults"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// DefaultImage is the node image kind v0.33.0 itself defaults to
// (Kubernetes v1.37.0), so that a config and `kind create cluster` without
// --image agree.
const DefaultImage = defaults.Image

// DefaultName is the cluster name the configs and the provider use.
const DefaultName = "draconform"

// KEPGate is the gate KEP-6406 adds. No released Kubernetes, hence no
// released node image, has it: a component given it refuses to start
// ("unrecognized feature gate"), so cells that set it need KEPBinDir.
const KEPGate = "DRAExtendedResourceCapacity"

// KEPImage is the name draconform node-image --kep gives the node image it
// builds with KEP-6406's kube-apiserver and kube-scheduler (besides a tag
// of its inputs), which the configs' KEP twins name.
const KEPImage = "draconform.dev/kind-node:v1.37.2-kep6406"

// Options are what varies between uses of the same cell.
type Options struct {
	// Name is the cluster name written in the config; default DefaultName.
	Name string
	// Image is the node image of every node; default DefaultImage.
	Image string
	// KEPBinDir is an absolute host directory holding kube-apiserver and
	// kube-scheduler built with KEP-6406 (statically linked: the component
	// images are distroless). Empty runs the node image's own binaries.
	KEPBinDir string
	// PatchesDir is the absolute host directory holding PatchFiles, which
	// kubeadm applies to the static pods; required with KEPBinDir.
	PatchesDir string
	// KEPImageBuilt says Image's control plane already has KEP-6406
	// binaries (KEPImage): they need the JSON settings kepJSONArgs, as
	// binaries from KEPBinDir do.
	KEPImageBuilt bool
	// KEPTwins adds to every config a twin, FileName(cell+KEPSuffix),
	// whose nodes run KEPImage: a plain kind create cluster with KEP-6406.
	KEPTwins bool
}

// KEPSuffix ends the name of a config's KEP twin.
const KEPSuffix = "-kep"

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	return o
}

// Build returns the kind configuration of cell: one control-plane node and
// one worker (so DRA drivers run on a node that is not the control plane,
// as in a real cluster), the cell's gates per component, the resource.k8s.io
// API, and CDI in containerd.
func Build(cell spec.Cell, o Options) (*v1alpha4.Cluster, error) {
	o = o.withDefaults()
	if err := checkPaths(o); err != nil {
		return nil, fmt.Errorf("kind config of cell %s: %w", cell.Name, err)
	}
	gates, err := gateState(cell)
	if err != nil {
		return nil, fmt.Errorf("kind config of cell %s: %w", cell.Name, err)
	}
	cfg := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     o.Name,
		Nodes: []v1alpha4.Node{
			{Role: v1alpha4.ControlPlaneRole, Image: o.Image},
			{Role: v1alpha4.WorkerRole, Image: o.Image},
		},
		// resource.k8s.io/v1 is on by default since v1.34; saying so keeps
		// the config working on a node image where it is not, instead of
		// every DRA case failing with "the server could not find the
		// requested resource". The beta versions are off by default; the
		// version-skew cases read and write through v1beta2, so they are
		// served here as on the embedded control plane.
		RuntimeConfig: map[string]string{
			"resource.k8s.io/v1":      "true",
			"resource.k8s.io/v1beta1": "true",
			"resource.k8s.io/v1beta2": "true",
		},
		ContainerdConfigPatches: []string{cdiPatch},
	}
	if patch, err := componentArgsPatch(gates, o.KEPBinDir != "" || o.KEPImageBuilt); err != nil {
		return nil, fmt.Errorf("kind config of cell %s: %w", cell.Name, err)
	} else if patch != "" {
		cfg.KubeadmConfigPatches = []string{patch}
	}
	if o.KEPBinDir != "" {
		cp := &cfg.Nodes[0]
		cp.ExtraMounts = kepMounts(o)
		if cp.KubeadmConfigPatches, err = patchesDirPatches(); err != nil {
			return nil, fmt.Errorf("kind config of cell %s: %w", cell.Name, err)
		}
	}
	return cfg, nil
}

func checkPaths(o Options) error {
	switch {
	case o.KEPBinDir == "" && o.PatchesDir == "":
		return nil
	case o.KEPBinDir == "" || o.PatchesDir == "":
		return fmt.Errorf("KEPBinDir (%q) and PatchesDir (%q) go together: the patches are what puts the binaries into the static pods", o.KEPBinDir, o.PatchesDir)
	}
	// kind would resolve a relative hostPath against its own working
	// directory, which is not the one the path was written for.
	for _, p := range []string{o.KEPBinDir, o.PatchesDir} {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("host path %q must be absolute", p)
		}
	}
	return nil
}

// gateState converts the cell's gates, refusing components kubeadm has no
// section for rather than dropping their gates.
func gateState(cell spec.Cell) (cluster.GateState, error) {
	known := map[cluster.Component]bool{}
	for _, c := range cluster.Components {
		known[c] = true
	}
	out := cluster.CellGates(&cell)
	for comp, g := range out {
		if !known[comp] {
			return nil, fmt.Errorf("gates for %q, which is not a control-plane component kubeadm configures", comp)
		}
		if len(g) == 0 {
			delete(out, comp)
		}
	}
	return out, nil
}
