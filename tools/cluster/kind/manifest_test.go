package kind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/cluster"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodePod(t *testing.T, data []byte) *corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(data, &pod); err != nil {
		t.Fatalf("not a pod: %v\n%s", err, data)
	}
	return &pod
}

// The manifests in testdata are what kubeadm v1.37 writes in a kind node:
// the edit must change the one flag and keep everything else as it was.
func TestSetFeatureGates(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		comp      cluster.Component
		gates     cluster.Gates
		wantFlags []string // every --feature-gates argument, in order
		wantAt    int      // index of the flag in the command; -1 when absent
	}{
		{"adds when missing, in kubeadm's order", "kube-apiserver.yaml", cluster.APIServer,
			cluster.Gates{"DRAExtendedResourceCapacity": true, "DRAConsumableCapacity": false},
			[]string{"--feature-gates=DRAConsumableCapacity=false,DRAExtendedResourceCapacity=true"}, 11},
		{"replaces when present", "kube-scheduler.yaml", cluster.Scheduler,
			cluster.Gates{"DRAExtendedResourceCapacity": true},
			[]string{"--feature-gates=DRAExtendedResourceCapacity=true"}, 4},
		{"removes when the gates are empty", "kube-scheduler.yaml", cluster.Scheduler,
			cluster.Gates{}, nil, -1},
		{"no gates on a manifest without them stays so", "kube-apiserver.yaml", cluster.APIServer,
			nil, nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := readTestdata(t, tt.file)
			out, err := SetFeatureGates(in, tt.comp, tt.gates)
			if err != nil {
				t.Fatal(err)
			}
			before, after := decodePod(t, in), decodePod(t, out)
			cmd := after.Spec.Containers[0].Command
			var flags []string
			at := -1
			for i, a := range cmd {
				if strings.HasPrefix(a, "--feature-gates") {
					flags = append(flags, a)
					at = i
				}
			}
			if diff := cmp.Diff(tt.wantFlags, flags); diff != "" {
				t.Errorf("--feature-gates flags (-want +got):\n%s", diff)
			}
			if at != tt.wantAt {
				t.Errorf("flag at index %d, want %d: %v", at, tt.wantAt, cmd)
			}
			// Everything but that flag is unchanged.
			var rest []string
			for _, a := range cmd {
				if !strings.HasPrefix(a, "--feature-gates") {
					rest = append(rest, a)
				}
			}
			var restBefore []string
			for _, a := range before.Spec.Containers[0].Command {
				if !strings.HasPrefix(a, "--feature-gates") {
					restBefore = append(restBefore, a)
				}
			}
			if diff := cmp.Diff(restBefore, rest); diff != "" {
				t.Errorf("other arguments changed (-before +after):\n%s", diff)
			}
			before.Spec.Containers[0].Command, after.Spec.Containers[0].Command = nil, nil
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("the rest of the pod changed (-before +after):\n%s", diff)
			}
			got, err := FeatureGatesOf(out, tt.comp)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.gates
			if want == nil {
				want = cluster.Gates{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FeatureGatesOf after the edit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetFeatureGatesCollapsesRepeatedFlags(t *testing.T) {
	in := strings.Replace(string(readTestdata(t, "kube-scheduler.yaml")),
		"    - --leader-elect=true\n",
		"    - --leader-elect=true\n    - --feature-gates=Old=true\n", 1)
	out, err := SetFeatureGates([]byte(in), cluster.Scheduler, cluster.Gates{"New": false})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "--feature-gates"); n != 1 {
		t.Errorf("%d --feature-gates flags remain:\n%s", n, out)
	}
}

func TestSetFeatureGatesErrors(t *testing.T) {
	apiserver := readTestdata(t, "kube-apiserver.yaml")
	tests := []struct {
		name     string
		manifest []byte
		comp     cluster.Component
		want     string
	}{
		{"wrong container", apiserver, cluster.Scheduler, "no container kube-scheduler (it has kube-apiserver)"},
		{"not yaml", []byte("spec: [\n"), cluster.APIServer, "not YAML"},
		{"empty", nil, cluster.APIServer, "is empty"},
		{"no containers", []byte("kind: Pod\nspec: {}\n"), cluster.APIServer, "no spec.containers"},
		{"no command", []byte("spec:\n  containers:\n  - name: kube-apiserver\n    args: [x]\n"), cluster.APIServer, "no command list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SetFeatureGates(tt.manifest, tt.comp, cluster.Gates{"A": true})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestGatesInCommand(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    cluster.Gates
		wantErr string
	}{
		{"none", []string{"kube-scheduler", "--v=2"}, cluster.Gates{}, ""},
		{"one", []string{"kube-scheduler", "--feature-gates=A=true,B=false"}, cluster.Gates{"A": true, "B": false}, ""},
		{"last wins", []string{"kube-scheduler", "--feature-gates=A=true", "--feature-gates=B=false"}, cluster.Gates{"B": false}, ""},
		{"the binary is not a flag", []string{"--feature-gates=A=true"}, cluster.Gates{}, ""},
		{"separate value", []string{"kube-scheduler", "--feature-gates", "A=true"}, nil, "only the --feature-gates=value form"},
		{"malformed", []string{"kube-scheduler", "--feature-gates=A"}, nil, `"A" is not Name=true|false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gatesInCommand(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetRestartAnnotation(t *testing.T) {
	for name, in := range map[string]string{
		"no annotations":   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec: {}\n",
		"null annotations": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\n  annotations:\nspec: {}\n",
		"other annotation": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\n  annotations:\n    a: b\nspec: {}\n",
		"set before":       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\n  annotations:\n    " + restartAnnotation + ": old\nspec: {}\n",
	} {
		out, err := SetRestartAnnotation([]byte(in), "now")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var pod corev1.Pod
		if err := yaml.Unmarshal(out, &pod); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if pod.Annotations[restartAnnotation] != "now" || pod.Name != "s" {
			t.Errorf("%s: annotations %v, name %q:\n%s", name, pod.Annotations, pod.Name, out)
		}
		if strings.Contains(in, "a: b") && pod.Annotations["a"] != "b" {
			t.Errorf("%s: lost the other annotation:\n%s", name, out)
		}
	}
	if _, err := SetRestartAnnotation([]byte("- a list\n"), "now"); err == nil {
		t.Error("a manifest that is not a mapping was accepted")
	}
}
