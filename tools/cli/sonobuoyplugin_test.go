package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The Sonobuoy plugin runs as its own service account, and --rbac prints
// that account with draconform rbac's manifest for it: the role, the log
// role and the policy that confines it, bound to that account alone.
func TestSonobuoyPluginShipsItsAccount(t *testing.T) {
	code, def, stderr := run(t, "sonobuoy-plugin", "--image", "img:1", "--service-account", "dc-plugin")
	if code != 0 || !strings.Contains(def, "serviceAccountName: dc-plugin") {
		t.Errorf("exit %d, the definition does not run as dc-plugin:\n%s%s", code, def, stderr)
	}
	code, manifest, stderr := run(t, "sonobuoy-plugin", "--rbac", "--namespace", "sonobuoy", "--service-account", "dc-plugin")
	if code != 0 {
		t.Fatalf("--rbac: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"kind: ServiceAccount\nmetadata:\n  name: dc-plugin\n  namespace: sonobuoy", "kind: ClusterRoleBinding", "kind: ValidatingAdmissionPolicyBinding",
		"request.userInfo.username == 'system:serviceaccount:sonobuoy:dc-plugin'", "name: draconform-runner-logs", "(draconform policy version"} {
		if !strings.Contains(manifest, want) {
			t.Errorf("--rbac does not hold %q:\n%s", want, manifest)
		}
	}
	if strings.Contains(manifest, "sonobuoy-serviceaccount") {
		t.Error("--rbac grants Sonobuoy's own account")
	}
	if code, _, stderr := run(t, "sonobuoy-plugin", "--rbac", "--namespace", "kube-system"); code != 2 || !strings.Contains(stderr, "kube-system") {
		t.Errorf("--rbac for kube-system: exit %d: %s", code, stderr)
	}
}

// The plugin never runs a moving tag from whatever a node holds: a test
// build is no release, so without --image it is refused and pointed at a
// digest; dev is refused; a tag is pulled each time; a digest is run as
// the node holds it (kind, where the image is loaded).
func TestSonobuoyPluginPinsItsImage(t *testing.T) {
	digest := "draconform.dev/draconform@sha256:" + strings.Repeat("5e", 32)
	for _, tt := range []struct {
		args            []string
		code            int
		policy, refusal string
	}{
		{nil, 2, "", "--image draconform.dev/draconform@sha256:"},
		{[]string{"--image", "draconform.dev/draconform:dev"}, 2, "", "the tag dev moves"},
		{[]string{"--image", "registry.example.com/draconform:v0.4.0"}, 0, "imagePullPolicy: Always", ""},
		{[]string{"--image", digest}, 0, "imagePullPolicy: IfNotPresent", ""},
	} {
		code, def, stderr := run(t, append([]string{"sonobuoy-plugin"}, tt.args...)...)
		if code != tt.code || !strings.Contains(def, tt.policy) || !strings.Contains(stderr, tt.refusal) {
			t.Errorf("sonobuoy-plugin %v: exit %d, want %d with %q%q:\n%s%s", tt.args, code, tt.code, tt.policy, tt.refusal, def, stderr)
		}
		if strings.Contains(def, ":dev") && strings.Contains(def, "IfNotPresent") {
			t.Errorf("sonobuoy-plugin %v runs a dev tag from whatever the node holds:\n%s", tt.args, def)
		}
	}
}

// sonobuoysDeleteSelects is what `sonobuoy delete --namespace ns` deletes
// of the cluster-scoped RBAC objects: those labelled so
// (vmware-tanzu/sonobuoy, pkg/client/delete.go, deleteRBAC). Its
// namespace goes whole; nothing else is deleted.
func sonobuoysDeleteSelects(ns string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{"component": "sonobuoy", "namespace": ns})
}

// The plugin's grants go with sonobuoy delete: its ClusterRoleBinding and
// ClusterRole carry the labels Sonobuoy's delete selects, and the manifest
// says how to remove what it leaves (the Lease Role and binding, the
// admission policy), by the same selector. The role it binds reads no pod
// cluster-wide.
func TestSonobuoyPluginRBACGoesWithSonobuoyDelete(t *testing.T) {
	code, manifest, stderr := run(t, "sonobuoy-plugin", "--rbac", "--namespace", "sb-ns", "--service-account", "dc-plugin")
	if code != 0 {
		t.Fatalf("--rbac: exit %d: %s", code, stderr)
	}
	sel := sonobuoysDeleteSelects("sb-ns")
	roles := map[string]*unstructured.Unstructured{}
	var bindings []*unstructured.Unstructured
	for _, doc := range strings.Split(manifest, "\n---\n")[1:] {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		deleted := sel.Matches(labels.Set(u.GetLabels()))
		switch u.GetKind() {
		case "ClusterRole":
			roles[u.GetName()] = u
		case "ClusterRoleBinding":
			bindings = append(bindings, u)
			if !deleted {
				t.Errorf("sonobuoy delete leaves ClusterRoleBinding %s (labels %v)", u.GetName(), u.GetLabels())
			}
		case "Role", "RoleBinding":
			cmd := "kubectl delete -n " + u.GetNamespace() + " role,rolebinding -l component=sonobuoy,namespace=sb-ns"
			if !deleted || !strings.Contains(manifest, cmd) {
				t.Errorf("nothing removes %s %s/%s: the manifest does not say %q, or it is not labelled so", u.GetKind(), u.GetNamespace(), u.GetName(), cmd)
			}
		case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			cmd := "kubectl delete validatingadmissionpolicybinding,validatingadmissionpolicy -l component=sonobuoy,namespace=sb-ns"
			if !deleted || !strings.Contains(manifest, cmd) {
				t.Errorf("nothing removes %s %s: the manifest does not say %q, or it is not labelled so", u.GetKind(), u.GetName(), cmd)
			}
		}
	}
	if len(bindings) != 1 {
		t.Fatalf("%d ClusterRoleBindings", len(bindings))
	}
	bound := roles[bindings[0].Object["roleRef"].(map[string]any)["name"].(string)]
	if bound == nil || !sel.Matches(labels.Set(bound.GetLabels())) {
		t.Fatalf("the bound ClusterRole is not in the manifest, or sonobuoy delete leaves it: %v", bound)
	}
	rules, _, _ := unstructured.NestedSlice(bound.Object, "rules")
	for _, r := range rules {
		rule := r.(map[string]any)
		if strings.Contains(fmt.Sprint(rule["resources"]), "pods") && strings.Contains(fmt.Sprint(rule["verbs"]), "list") {
			t.Errorf("the plugin's account lists pods cluster-wide: %v", rule)
		}
	}
	for name, r := range roles {
		if r != bound && !strings.HasPrefix(name, "draconform-runner-") {
			t.Errorf("ClusterRole %s is neither the bound one nor one the runner binds in its namespaces", name)
		}
	}
}

// pluginDef is what Sonobuoy reads of a definition.
type pluginDef struct {
	Config    map[string]any    `json:"sonobuoy-config"`
	Spec      corev1.Container  `json:"spec"`
	PodSpec   corev1.PodSpec    `json:"podSpec"`
	ConfigMap map[string]string `json:"config-map"`
}

func pluginDefOf(t *testing.T, args ...string) pluginDef {
	t.Helper()
	code, out, stderr := run(t, append([]string{"sonobuoy-plugin", "--image", "registry.example.com/draconform:v0.4.0"}, args...)...)
	if code != 0 {
		t.Fatalf("sonobuoy-plugin %v: exit %d: %s", args, code, stderr)
	}
	var def pluginDef
	if err := yaml.UnmarshalStrict([]byte(out), &def); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	return def
}

// With --claim the plugin certifies as a vendor does: certify with the
// claim, the cell and consent given, the host's driver profile and
// product carried in the config-map and read where Sonobuoy mounts it,
// --sonobuoy to hand the bundle over, and never --allow-unconfined unless
// asked: its account is confined by sonobuoy-plugin --rbac. The pod is
// the same restricted pod as the run's.
func TestSonobuoyPluginCertifies(t *testing.T) {
	profile, product := "../../suites/profiles/dra-example-driver.yaml", "../../suites/profiles/dra-example-driver.product.yaml"
	runDef := pluginDefOf(t, "--as-cell", "capacity-on", "--allow-fake-nodes")
	def := pluginDefOf(t, "--claim", "kep6406-gates-on", "--as-cell", "capacity-on", "--allow-fake-nodes", "--driver-profile", profile, "--product", product)
	want := []string{"certify", "--claim", "kep6406-gates-on", "--provider", "kubeconfig", "--sonobuoy", "--out", "/tmp/draconform",
		"--driver-profile", "/tmp/sonobuoy/config/driver-profile.yaml", "--product", "/tmp/sonobuoy/config/product.yaml", "--as-cell", "capacity-on", "--allow-fake-nodes"}
	if strings.Join(def.Spec.Args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q\nwant %q", def.Spec.Args, want)
	}
	for name, path := range map[string]string{"driver-profile.yaml": profile, "product.yaml": product} {
		data, _ := os.ReadFile(path)
		if def.ConfigMap[name] != string(data) {
			t.Errorf("config-map %s is not %s as the host holds it: %q", name, path, def.ConfigMap[name])
		}
	}
	if len(runDef.ConfigMap) != 0 || runDef.Spec.Args[0] != "run" {
		t.Errorf("without --claim: args %q, config-map %v", runDef.Spec.Args, runDef.ConfigMap)
	}
	// Only the arguments and the config-map differ from the run's.
	runDef.Spec.Args, def.Spec.Args = nil, nil
	if !reflect.DeepEqual(runDef.Spec, def.Spec) || !reflect.DeepEqual(runDef.PodSpec, def.PodSpec) || !reflect.DeepEqual(runDef.Config, def.Config) {
		t.Errorf("the certifying plugin's pod differs from the run's:\n%+v\n%+v", def.Spec, runDef.Spec)
	}
	if args := pluginDefOf(t, "--claim", "c", "--product", product, "--allow-unconfined").Spec.Args; !slices.Equal(args[len(args)-3:], []string{"--product", "/tmp/sonobuoy/config/product.yaml", "--allow-unconfined"}) {
		t.Errorf("--allow-unconfined is not passed on: %q", args)
	}
}

// What certify would refuse of the host's files is refused when the
// definition is printed, not in the pod.
func TestSonobuoyPluginRefusesWhatCertifyWould(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile.yaml")
	_ = os.WriteFile(profile, []byte("apiVersion: draconform.dev/v1alpha1\nkind: DriverProfile\nname: other\ndriver: nic.example.com\ncapacity: bandwidth\nshare: 1Gi\noverCapacity: 1Ti\nworkload: {image: busybox, command: [sh]}\nenv: {X: <any>, BANDWIDTH: 1Gi}\n"), 0o644)
	product := "../../suites/profiles/dra-example-driver.product.yaml"
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"--claim", "kep6406-gates-on"}, "--claim needs --product FILE"},
		{[]string{"--product", product}, "give --claim too"},
		{[]string{"--claim", "kep6406-gates-on", "--product", product, "--driver-profile", profile}, "the product's driver is gpu.example.com, the driver profile's nic.example.com"},
		{[]string{"--claim", "kep6406-gates-on", "--product", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"--driver-profile", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
	} {
		code, out, stderr := run(t, append([]string{"sonobuoy-plugin", "--image", "registry.example.com/draconform:v0.4.0"}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.says) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, want 2 saying %q", tt.args, code, stderr, tt.says)
		}
	}
}

// --apply applies what --rbac prints, to the cluster --kubeconfig names:
// alone it is refused, and a kubeconfig that cannot be read is said, both
// before anything is written (exit 2).
func TestSonobuoyPluginApplyRefusals(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--apply"}, "--apply applies what --rbac prints: give --rbac too"},
		{[]string{"--rbac", "--apply", "--kubeconfig", missing}, "reading kubeconfig " + missing},
	} {
		code, out, stderr := run(t, append([]string{"sonobuoy-plugin"}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) || out != "" {
			t.Errorf("sonobuoy-plugin %v: exit %d, want 2 saying %q:\n%s%s", tt.args, code, tt.want, out, stderr)
		}
	}
}
