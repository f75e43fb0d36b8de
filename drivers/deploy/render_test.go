package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/draconform/draconform/drivers/config"
)

func TestCheckedInManifestIsCurrent(t *testing.T) {
	want, err := DefaultManifest()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("testdriver.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("drivers/deploy/testdriver.yaml differs from Render(Options{}); regenerate it with\n"+
			"  go generate ./drivers/deploy\n(-checked in +rendered):\n%s", cmp.Diff(string(got), string(want)))
	}
}

// decodeAll decodes every document strictly with client-go's scheme: an
// unknown or misspelled field, a wrong type or an unknown kind fails.
func decodeAll(t *testing.T, data []byte) ([]runtime.Object, []string) {
	t.Helper()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	var kinds []string
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, kinds
		}
		if err != nil {
			t.Fatalf("split documents: %v", err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, gvk, err := strictDecoder().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("document %d: %v\n%s", len(objs), err, doc)
		}
		objs = append(objs, obj)
		kinds = append(kinds, gvk.Kind)
	}
}

func strictDecoder() runtime.Decoder {
	return serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
}

// TestStrictDecoderIsStrict proves that the decoding below would catch a
// misspelled field.
func TestStrictDecoderIsStrict(t *testing.T) {
	_, _, err := strictDecoder().Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndatta: {}\n"), nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown field "datta"`) {
		t.Errorf("error = %v, want unknown field", err)
	}
}

func TestManifestsDecodeStrictly(t *testing.T) {
	two := resource.MustParse("2")
	custom := &config.Config{Devices: []config.Device{{
		Name:       "only-0",
		Attributes: map[string]config.Attribute{"model": config.StringAttribute("no")},
		Capacity:   map[string]config.Capacity{"shares": {Value: &two}},
	}}}

	for name, tc := range map[string]struct {
		opts          Options
		wantImage     string
		wantNamespace string
		wantConfig    *config.Config
	}{
		"defaults": {
			opts:      Options{},
			wantImage: "draconform.dev/testdriver:dev", wantNamespace: "draconform-driver", wantConfig: config.Default(),
		},
		"custom": {
			opts:      Options{Image: "registry.example/driver:v2", Namespace: "other", Config: custom},
			wantImage: "registry.example/driver:v2", wantNamespace: "other", wantConfig: custom,
		},
	} {
		t.Run(name, func(t *testing.T) {
			data, err := Render(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			objs, kinds := decodeAll(t, data)
			if want := []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "DaemonSet"}; !slices.Equal(kinds, want) {
				t.Fatalf("kinds = %v, want %v", kinds, want)
			}
			ns := objs[0].(*corev1.Namespace)
			sa := objs[1].(*corev1.ServiceAccount)
			role := objs[2].(*rbacv1.ClusterRole)
			binding := objs[3].(*rbacv1.ClusterRoleBinding)
			cm := objs[4].(*corev1.ConfigMap)
			ds := objs[5].(*appsv1.DaemonSet)

			if ns.Name != tc.wantNamespace || sa.Namespace != tc.wantNamespace || cm.Namespace != tc.wantNamespace || ds.Namespace != tc.wantNamespace {
				t.Errorf("namespaces: %s, %s, %s, %s; want %s", ns.Name, sa.Namespace, cm.Namespace, ds.Namespace, tc.wantNamespace)
			}
			checkRBAC(t, role, binding, sa)

			parsed, err := config.Parse([]byte(cm.Data["config.yaml"]))
			if err != nil {
				t.Fatalf("ConfigMap config.yaml: %v", err)
			}
			if diff := cmp.Diff(tc.wantConfig.APIDevices(), parsed.APIDevices(), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("ConfigMap devices (-want +got):\n%s", diff)
			}

			checkDaemonSet(t, ds, tc.wantImage, sa.Name, cm.Name)
		})
	}
}

func checkRBAC(t *testing.T, role *rbacv1.ClusterRole, binding *rbacv1.ClusterRoleBinding, sa *corev1.ServiceAccount) {
	t.Helper()
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims"}, Verbs: []string{"get"}},
		{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceslices"}, Verbs: []string{"list", "watch", "create", "update", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
	}
	if diff := cmp.Diff(want, role.Rules); diff != "" {
		t.Errorf("ClusterRole rules (-want +got):\n%s", diff)
	}
	if binding.RoleRef.Kind != "ClusterRole" || binding.RoleRef.Name != role.Name {
		t.Errorf("binding refers to %+v, want ClusterRole %s", binding.RoleRef, role.Name)
	}
	if len(binding.Subjects) != 1 || binding.Subjects[0].Kind != "ServiceAccount" || binding.Subjects[0].Name != sa.Name || binding.Subjects[0].Namespace != sa.Namespace {
		t.Errorf("binding subjects = %+v, want service account %s/%s", binding.Subjects, sa.Namespace, sa.Name)
	}
}

func checkDaemonSet(t *testing.T, ds *appsv1.DaemonSet, image, serviceAccount, configMap string) {
	t.Helper()
	pod := ds.Spec.Template.Spec
	if pod.ServiceAccountName != serviceAccount {
		t.Errorf("serviceAccountName = %q, want %q", pod.ServiceAccountName, serviceAccount)
	}
	if ds.Spec.Selector == nil || !cmp.Equal(ds.Spec.Selector.MatchLabels, ds.Spec.Template.Labels) {
		t.Errorf("selector %v does not match template labels %v", ds.Spec.Selector, ds.Spec.Template.Labels)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != image || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("image %q pull %q, want %q IfNotPresent", c.Image, c.ImagePullPolicy, image)
	}
	if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged {
		t.Error("container is privileged")
	}
	if len(c.Env) != 1 || c.Env[0].Name != "NODE_NAME" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil || c.Env[0].ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("env = %+v, want NODE_NAME from spec.nodeName", c.Env)
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	// Every host directory must be mounted at its own path: the kubelet
	// dials the socket path the driver registers, and the runtime reads
	// the CDI specs the driver writes.
	hostMounts := map[string]bool{}
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			t.Errorf("mount %s has no volume", m.Name)
			continue
		}
		switch {
		case v.HostPath != nil:
			if v.HostPath.Path != m.MountPath {
				t.Errorf("host path %s mounted at %s", v.HostPath.Path, m.MountPath)
			}
			hostMounts[m.MountPath] = true
		case v.ConfigMap != nil:
			if v.ConfigMap.Name != configMap || m.MountPath != "/etc/draconform-driver" {
				t.Errorf("config volume: ConfigMap %s at %s, want %s at /etc/draconform-driver", v.ConfigMap.Name, m.MountPath, configMap)
			}
		}
	}
	for _, dir := range []string{"/var/lib/kubelet/plugins/testdriver.draconform.dev", "/var/lib/kubelet/plugins_registry", "/var/run/cdi"} {
		if !hostMounts[dir] {
			t.Errorf("%s is not mounted from the host", dir)
		}
	}
	wantArgs := []string{
		"--config=/etc/draconform-driver/config.yaml",
		"--cdi-dir=/var/run/cdi",
		"--plugin-dir=/var/lib/kubelet/plugins/testdriver.draconform.dev",
		"--registrar-dir=/var/lib/kubelet/plugins_registry",
	}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args = %q, want %q", c.Args, wantArgs)
	}
}

func TestConfigChangeChangesPodTemplate(t *testing.T) {
	other := config.Default()
	other.Devices = other.Devices[:1]
	a, b := renderDaemonSet(t, Options{}), renderDaemonSet(t, Options{Config: other})
	if cmp.Equal(a.Spec.Template.Annotations, b.Spec.Template.Annotations) {
		t.Errorf("pod template annotations %v do not change with the config, so pods would keep the old one", a.Spec.Template.Annotations)
	}
}

func TestRenderRejectsInvalidConfig(t *testing.T) {
	_, err := Render(Options{Config: &config.Config{}})
	want := "driver config: devices: Required value: at least one device"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func renderDaemonSet(t *testing.T, o Options) *appsv1.DaemonSet {
	t.Helper()
	data, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	objs, _ := decodeAll(t, data)
	return objs[len(objs)-1].(*appsv1.DaemonSet)
}

// A node whose kubelet keeps its state elsewhere, with no kube-proxy, as the
// embedded provider's node: the sockets move with the kubelet's directory,
// the CDI specs go where that node's runtime reads them, and the driver
// reaches the API server on the host's network.
func TestRenderForANodeOfItsOwn(t *testing.T) {
	ds := renderDaemonSet(t, Options{
		KubeletDir:   "/var/lib/draconform/n1/kubelet",
		CDIDir:       "/var/lib/draconform/n1/cdi",
		NodeSelector: map[string]string{"kubernetes.io/hostname": "n1"},
		APIServer:    "127.0.0.1:6443",
	})
	pod := ds.Spec.Template.Spec
	if !pod.HostNetwork {
		t.Error("hostNetwork is off: without kube-proxy the driver cannot reach the kubernetes Service")
	}
	if diff := cmp.Diff(map[string]string{"kubernetes.io/hostname": "n1"}, pod.NodeSelector); diff != "" {
		t.Errorf("nodeSelector (-want +got):\n%s", diff)
	}
	c := pod.Containers[0]
	wantArgs := []string{
		"--config=/etc/draconform-driver/config.yaml",
		"--cdi-dir=/var/run/cdi",
		"--plugin-dir=/var/lib/draconform/n1/kubelet/plugins/testdriver.draconform.dev",
		"--registrar-dir=/var/lib/draconform/n1/kubelet/plugins_registry",
	}
	if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["KUBERNETES_SERVICE_HOST"] != "127.0.0.1" || env["KUBERNETES_SERVICE_PORT"] != "6443" {
		t.Errorf("env %v does not point the in-cluster config at 127.0.0.1:6443", env)
	}
	hostPaths := map[string]string{}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	wantPaths := map[string]string{
		"plugin":   "/var/lib/draconform/n1/kubelet/plugins/testdriver.draconform.dev",
		"registry": "/var/lib/draconform/n1/kubelet/plugins_registry",
		"cdi":      "/var/lib/draconform/n1/cdi",
	}
	if diff := cmp.Diff(wantPaths, hostPaths); diff != "" {
		t.Errorf("host paths (-want +got):\n%s", diff)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["plugin"] != wantPaths["plugin"] || mounts["registry"] != wantPaths["registry"] || mounts["cdi"] != "/var/run/cdi" {
		t.Errorf("mounts %v: the sockets must be at the host's paths, the CDI dir at the driver's --cdi-dir", mounts)
	}
}
