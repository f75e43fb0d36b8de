package kindconfig

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// shippedCells are the cells of suites/cells.yaml that have a kind config,
// in file order: all but the version-skew ones (released:).
func shippedCells(t *testing.T) []spec.Cell {
	t.Helper()
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatalf("loading the shipped suites: %v", err)
	}
	var out []spec.Cell
	for _, name := range b.CellOrder {
		if len(b.Cells[name].Released) == 0 {
			out = append(out, *b.Cells[name])
		}
	}
	return out
}

func TestVersionSkewCellsHaveNoConfig(t *testing.T) {
	cells := []spec.Cell{{Name: "defaults"}, {Name: "skew", Gates: map[string]map[string]bool{"kube-apiserver": {"DRAExtendedResourceCapacity": true}}, Released: []string{"kube-scheduler"}}}
	files, err := Files(cells, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[FileName("skew")]; ok || len(files) != 1 {
		t.Errorf("files %v: a cell with released components must have no kind config, the others one", keys(files))
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// kubeadmPatch mirrors the part of kubeadm's v1beta4 ClusterConfiguration
// the patch may set; decoding with KnownFields catches a misspelt key,
// which kubeadm would otherwise reject only inside a node.
type kubeadmPatch struct {
	APIVersion        string         `yaml:"apiVersion"`
	Kind              string         `yaml:"kind"`
	APIServer         *componentArgs `yaml:"apiServer"`
	ControllerManager *componentArgs `yaml:"controllerManager"`
	Scheduler         *componentArgs `yaml:"scheduler"`
}

func decodeStrict(t *testing.T, data string, v any) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, data)
	}
}

// flags gives each component's feature-gates value, "" where it has none.
func flags(t *testing.T, cfg *v1alpha4.Cluster) map[string]string {
	t.Helper()
	out := map[string]string{}
	for comp, args := range extraArgs(t, cfg) {
		for _, a := range args {
			if comp == "kube-scheduler" && a == schedulerVerbosity {
				continue // TestEveryClusterSchedulerLogsItsAttempts
			}
			if a.Name != "feature-gates" {
				t.Errorf("%s: unexpected extra arg %s", comp, a.Name)
			}
			out[comp] = a.Value
		}
	}
	return out
}

// extraArgs are the ClusterConfiguration patch's extraArgs by component.
func extraArgs(t *testing.T, cfg *v1alpha4.Cluster) map[string][]arg {
	t.Helper()
	out := map[string][]arg{}
	if len(cfg.KubeadmConfigPatches) == 0 {
		return out
	}
	if len(cfg.KubeadmConfigPatches) != 1 {
		t.Fatalf("want one ClusterConfiguration patch, got %d", len(cfg.KubeadmConfigPatches))
	}
	var p kubeadmPatch
	decodeStrict(t, cfg.KubeadmConfigPatches[0], &p)
	if p.APIVersion != "kubeadm.k8s.io/v1beta4" || p.Kind != "ClusterConfiguration" {
		t.Errorf("patch targets %s %s, want kubeadm.k8s.io/v1beta4 ClusterConfiguration", p.APIVersion, p.Kind)
	}
	for comp, sec := range map[string]*componentArgs{"kube-apiserver": p.APIServer, "kube-controller-manager": p.ControllerManager, "kube-scheduler": p.Scheduler} {
		if sec != nil {
			out[comp] = sec.ExtraArgs
		}
	}
	return out
}

func TestBuildSetsEachComponentsGates(t *testing.T) {
	tests := []struct {
		cell string
		want map[string]string
	}{
		{"defaults", map[string]string{}},
		{"consumable-capacity-off", map[string]string{
			"kube-apiserver":          "DRAConsumableCapacity=false",
			"kube-scheduler":          "DRAConsumableCapacity=false",
			"kube-controller-manager": "DRAConsumableCapacity=false",
		}},
		{"capacity-on", map[string]string{
			"kube-apiserver": "DRAExtendedResourceCapacity=true",
			"kube-scheduler": "DRAExtendedResourceCapacity=true",
		}},
		{"capacity-scheduler-off", map[string]string{
			"kube-apiserver": "DRAExtendedResourceCapacity=true",
			"kube-scheduler": "DRAExtendedResourceCapacity=false",
		}},
		{"capacity-on-consumable-off", map[string]string{
			"kube-apiserver":          "DRAConsumableCapacity=false,DRAExtendedResourceCapacity=true",
			"kube-scheduler":          "DRAConsumableCapacity=false,DRAExtendedResourceCapacity=true",
			"kube-controller-manager": "DRAConsumableCapacity=false",
		}},
	}
	cells := map[string]spec.Cell{}
	for _, c := range shippedCells(t) {
		cells[c.Name] = c
	}
	for _, tt := range tests {
		t.Run(tt.cell, func(t *testing.T) {
			c, ok := cells[tt.cell]
			if !ok {
				t.Fatalf("no cell %s in suites/cells.yaml", tt.cell)
			}
			cfg, err := Build(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, flags(t, cfg)); diff != "" {
				t.Errorf("feature-gates per component (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildCommonShape(t *testing.T) {
	cfg, err := Build(spec.Cell{Name: "x"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     "draconform",
		Nodes: []v1alpha4.Node{
			{Role: v1alpha4.ControlPlaneRole, Image: DefaultImage},
			{Role: v1alpha4.WorkerRole, Image: DefaultImage},
		},
		RuntimeConfig:           map[string]string{"resource.k8s.io/v1": "true", "resource.k8s.io/v1beta1": "true", "resource.k8s.io/v1beta2": "true"},
		KubeadmConfigPatches:    []string{"apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nscheduler:\n  extraArgs:\n    - name: v\n      value: \"2\"\n"},
		ContainerdConfigPatches: []string{"[plugins.\"io.containerd.cri.v1.runtime\"]\n  enable_cdi = true\n"},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(DefaultImage, "kindest/node:v1.37.") {
		t.Errorf("DefaultImage %s: kind v0.33.0 defaults to a v1.37 node", DefaultImage)
	}
}

func TestBuildOptions(t *testing.T) {
	cfg, err := Build(spec.Cell{Name: "x"}, Options{Name: "other", Image: "kindest/node:v1.37.2"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "other" {
		t.Errorf("name %q", cfg.Name)
	}
	for _, n := range cfg.Nodes {
		if n.Image != "kindest/node:v1.37.2" {
			t.Errorf("%s node image %q", n.Role, n.Image)
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	tests := []struct {
		name string
		cell spec.Cell
		opts Options
		want string
	}{
		{"unknown component", spec.Cell{Name: "c", Gates: map[string]map[string]bool{"kubelet": {"A": true}}}, Options{}, `gates for "kubelet"`},
		{"binaries without patches", spec.Cell{Name: "c"}, Options{KEPBinDir: "/bin"}, "go together"},
		{"relative binaries", spec.Cell{Name: "c"}, Options{KEPBinDir: "bin", PatchesDir: "/p"}, `"bin" must be absolute`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.cell, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "cell c") {
				t.Errorf("error %v, want one naming cell c and saying %q", err, tt.want)
			}
		})
	}
}

func TestBuildWithKEPBinaries(t *testing.T) {
	cfg, err := Build(spec.Cell{Name: "x"}, Options{KEPBinDir: "/host/bin", PatchesDir: "/host/patches"})
	if err != nil {
		t.Fatal(err)
	}
	cp, worker := cfg.Nodes[0], cfg.Nodes[1]
	wantMounts := []v1alpha4.Mount{
		{HostPath: "/host/bin", ContainerPath: "/draconform/kep-bin", Readonly: true},
		{HostPath: "/host/patches", ContainerPath: "/draconform/kubeadm-patches", Readonly: true},
	}
	if diff := cmp.Diff(wantMounts, cp.ExtraMounts); diff != "" {
		t.Errorf("control-plane mounts (-want +got):\n%s", diff)
	}
	if len(worker.ExtraMounts) != 0 || len(worker.KubeadmConfigPatches) != 0 {
		t.Errorf("the worker runs no control plane and needs no KEP binaries: %+v", worker)
	}
	var kinds []string
	for _, p := range cp.KubeadmConfigPatches {
		var doc struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Patches    struct {
				Directory string `yaml:"directory"`
			} `yaml:"patches"`
		}
		decodeStrict(t, p, &doc)
		if doc.APIVersion != KubeadmAPIVersion || doc.Patches.Directory != NodePatchesDir {
			t.Errorf("patch %+v", doc)
		}
		kinds = append(kinds, doc.Kind)
	}
	if diff := cmp.Diff([]string{"InitConfiguration", "JoinConfiguration"}, kinds); diff != "" {
		t.Errorf("node patches (-want +got):\n%s", diff)
	}
}

// KEP binaries keep the field only over JSON: the API server must store
// JSON and the scheduler must read JSON, next to the cell's gates.
func TestKEPBinariesSpeakJSON(t *testing.T) {
	cell := spec.Cell{Name: "x", Gates: map[string]map[string]bool{"kube-scheduler": {KEPGate: true}}}
	cfg, err := Build(cell, Options{KEPBinDir: "/host/bin", PatchesDir: "/host/patches"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]arg{
		"kube-apiserver": {{Name: "storage-media-type", Value: "application/json"}},
		"kube-scheduler": {
			{Name: "feature-gates", Value: KEPGate + "=true"},
			{Name: "kube-api-content-type", Value: "application/json"},
			{Name: "v", Value: "2"},
		},
	}
	if diff := cmp.Diff(want, extraArgs(t, cfg)); diff != "" {
		t.Errorf("extraArgs with KEP binaries (-want +got):\n%s", diff)
	}
	// So do binaries the node image holds (draconform node-image --kep).
	cfg, err = Build(cell, Options{Image: KEPImage, KEPImageBuilt: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, extraArgs(t, cfg)); diff != "" {
		t.Errorf("extraArgs with a KEP node image (-want +got):\n%s", diff)
	}
	// The node image's own binaries keep their defaults.
	cfg, err = Build(cell, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]arg{"kube-scheduler": {{Name: "feature-gates", Value: KEPGate + "=true"}, {Name: "v", Value: "2"}}}, extraArgs(t, cfg)); diff != "" {
		t.Errorf("extraArgs without KEP binaries (-want +got):\n%s", diff)
	}
}

// Every generated file must be what kind's own decoder accepts: kind reads
// v1alpha4 with yaml KnownFields (pkg/internal/apis/config/encoding), so a
// key kind does not know fails here as it would in `kind create cluster`.
func TestFilesDecodeStrictlyIntoKindTypes(t *testing.T) {
	cells := shippedCells(t)
	for _, opts := range []Options{{}, {KEPBinDir: "/host/bin", PatchesDir: "/host/patches"}} {
		files, err := Files(cells, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(cells) {
			t.Fatalf("%d files for %d cells", len(files), len(cells))
		}
		for _, c := range cells {
			data := files[FileName(c.Name)]
			got := &v1alpha4.Cluster{}
			dec := yaml.NewDecoder(bytes.NewReader(data))
			dec.KnownFields(true)
			if err := dec.Decode(got); err != nil {
				t.Fatalf("%s: %v", FileName(c.Name), err)
			}
			want, err := Build(c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s does not decode to its config (-want +got):\n%s", FileName(c.Name), diff)
			}
			if !strings.HasPrefix(string(data), "# Generated by `draconform kind-configs`") {
				t.Errorf("%s lacks the generated header:\n%s", FileName(c.Name), data)
			}
		}
	}
}

func TestHeaderWarnsAboutTheKEPGate(t *testing.T) {
	on := spec.Cell{Name: "on", Gates: map[string]map[string]bool{"kube-apiserver": {KEPGate: true}}}
	if h := header(on, Options{}); !strings.Contains(h, "exists only in KEP-6406 builds") {
		t.Errorf("no warning:\n%s", h)
	}
	if h := header(on, Options{KEPBinDir: "/b", PatchesDir: "/p"}); strings.Contains(h, "exists only in KEP-6406 builds") {
		t.Errorf("warning although KEP binaries run:\n%s", h)
	}
	refusing := spec.Cell{Name: "r", StartRefusal: "depends on features that are disabled"}
	if h := header(refusing, Options{}); !strings.Contains(h, "#   depends on features that are disabled\n") {
		t.Errorf("start refusal not stated:\n%s", h)
	}
}

// Every cluster's kube-scheduler logs its attempts at a pod, which
// expectNoHotLoop counts: at kubeadm's default level it logs none, and the
// hot-loop cases skipped on kind.
func TestEveryClusterSchedulerLogsItsAttempts(t *testing.T) {
	for _, opts := range []Options{{}, {KEPBinDir: "/host/bin", PatchesDir: "/host/patches"}} {
		for _, cell := range []spec.Cell{{Name: "x"}, {Name: "y", Gates: map[string]map[string]bool{"kube-apiserver": {KEPGate: true}}}} {
			cfg, err := Build(cell, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(extraArgs(t, cfg)["kube-scheduler"], arg{Name: "v", Value: "2"}) {
				t.Errorf("cell %s (KEP binaries %q): kube-scheduler runs without --v=2: %v", cell.Name, opts.KEPBinDir, extraArgs(t, cfg))
			}
		}
	}
}

// The checked-in configs each have a KEP twin: the same cell, its nodes on
// the image draconform node-image --kep tags, speaking JSON; the twin says
// how to get that image.
func TestEveryConfigHasAKEPTwin(t *testing.T) {
	cells := shippedCells(t)
	files, err := Files(cells, Options{KEPTwins: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(cells) {
		t.Fatalf("%d files for %d cells, want a twin each", len(files), len(cells))
	}
	for _, c := range cells {
		name := FileName(c.Name + KEPSuffix)
		got := &v1alpha4.Cluster{}
		dec := yaml.NewDecoder(bytes.NewReader(files[name]))
		dec.KnownFields(true)
		if err := dec.Decode(got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := Build(c, Options{Image: KEPImage, KEPImageBuilt: true})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s is not the cell on the KEP image (-want +got):\n%s", name, diff)
		}
		for _, line := range []string{"Use: kind create cluster --config kind-configs/" + name, "draconform node-image --kep"} {
			if !strings.Contains(string(files[name]), line) {
				t.Errorf("%s does not say %q", name, line)
			}
		}
		if plain := string(files[FileName(c.Name)]); strings.Contains(plain, KEPImage) {
			t.Errorf("%s names the KEP image", FileName(c.Name))
		}
	}
}
