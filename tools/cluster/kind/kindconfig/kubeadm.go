package kindconfig

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/cluster"
)

// KubeadmAPIVersion is the kubeadm config API kind v0.33.0 generates for
// Kubernetes v1.36 and later (pkg/cluster/internal/kubeadm/config.go picks
// ConfigTemplateBetaV4 unless the version is below v1.36.0). kind applies a
// patch only to the document of the same apiVersion, and for v1beta4 it
// merges extraArgs entries by name (pkg/internal/patch/kubeadm_merge.go), so
// a feature-gates entry here adds to kind's own runtime-config entry instead
// of replacing the list.
const KubeadmAPIVersion = "kubeadm.k8s.io/v1beta4"

// arg is one v1beta4 extraArgs entry: a list of name/value pairs, since
// v1beta4 allows a flag more than once (v1beta3 had a map).
type arg struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

type componentArgs struct {
	ExtraArgs []arg `yaml:"extraArgs"`
}

type clusterConfigurationPatch struct {
	APIVersion        string         `yaml:"apiVersion"`
	Kind              string         `yaml:"kind"`
	APIServer         *componentArgs `yaml:"apiServer,omitempty"`
	ControllerManager *componentArgs `yaml:"controllerManager,omitempty"`
	Scheduler         *componentArgs `yaml:"scheduler,omitempty"`
}

// kepJSONArgs keep KEP-6406's field on the wire and in etcd when KEP
// binaries run: the prototype adds the field to the JSON types and not to
// the generated protobuf code, so a protobuf client or storage drops it
// without a word (the prototype-protobuf-scheduler mutant shows the suite
// failing so). The embedded prototype provider runs with the same two
// settings. A future release that has the field in protobuf needs neither.
var kepJSONArgs = map[cluster.Component]arg{
	cluster.APIServer: {Name: "storage-media-type", Value: "application/json"},
	// kubeadm starts kube-scheduler without --config, so the deprecated
	// flag is what sets clientConnection.contentType.
	cluster.Scheduler: {Name: "kube-api-content-type", Value: "application/json"},
}

// schedulerVerbosity is the level at which kube-scheduler logs each attempt
// at a pod ("Unable to schedule pod"): expectNoHotLoop counts them, and at
// kubeadm's default it skips on kind. The embedded providers run at it too.
var schedulerVerbosity = arg{Name: "v", Value: "2"}

// componentArgsPatch is the ClusterConfiguration patch giving each
// component its own --feature-gates, and with KEP binaries the JSON
// settings they need, or "" when there is nothing to set. kind's top-level
// featureGates cannot be used: it sets the same gates on every component
// and the kubelet, and cells differ per component on purpose.
func componentArgsPatch(gates cluster.GateState, kepBinaries bool) (string, error) {
	p := clusterConfigurationPatch{APIVersion: KubeadmAPIVersion, Kind: "ClusterConfiguration"}
	section := func(c cluster.Component) *componentArgs {
		var args []arg
		if len(gates[c]) > 0 {
			args = append(args, arg{Name: "feature-gates", Value: gates[c].Flag()})
		}
		if a, ok := kepJSONArgs[c]; ok && kepBinaries {
			args = append(args, a)
		}
		if c == cluster.Scheduler {
			args = append(args, schedulerVerbosity)
		}
		if len(args) == 0 {
			return nil
		}
		return &componentArgs{ExtraArgs: args}
	}
	p.APIServer = section(cluster.APIServer)
	p.ControllerManager = section(cluster.ControllerManager)
	p.Scheduler = section(cluster.Scheduler)
	if p.APIServer == nil && p.ControllerManager == nil && p.Scheduler == nil {
		return "", nil
	}
	return marshal(p)
}

type patchesSection struct {
	Directory string `yaml:"directory"`
}

type nodeConfigurationPatch struct {
	APIVersion string         `yaml:"apiVersion"`
	Kind       string         `yaml:"kind"`
	Patches    patchesSection `yaml:"patches"`
}

// patchesDirPatches point kubeadm at the mounted patch files. Init is what
// the single control-plane node runs; Join is set as well so that a second
// control-plane node, should one be added, gets the same binaries.
func patchesDirPatches() ([]string, error) {
	var out []string
	for _, kind := range []string{"InitConfiguration", "JoinConfiguration"} {
		p, err := marshal(nodeConfigurationPatch{APIVersion: KubeadmAPIVersion, Kind: kind, Patches: patchesSection{Directory: NodePatchesDir}})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding a kubeadm patch: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encoding a kubeadm patch: %w", err)
	}
	return b.String(), nil
}
