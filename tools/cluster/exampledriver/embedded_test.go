package exampledriver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/draconform/draconform/tools/cluster/testdriver"
)

// chartDaemonSet is the shape of the kubelet plugin's DaemonSet as the
// chart of v0.4.0 renders it (templates/kubeletplugin.yaml), cut to what
// onTheEmbeddedNode reads.
const chartDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dra-example-driver-kubeletplugin, namespace: dra-example-driver}
spec:
  template:
    spec:
      containers:
      - name: plugin
        image: draconform.dev/dra-example-driver:v0.4.0
        securityContext: {privileged: true}
        env:
        - {name: NUM_DEVICES, value: "2"}
        - name: POD_UID
          valueFrom: {fieldRef: {fieldPath: metadata.uid}}
      volumes:
      - {name: plugins-registry, hostPath: {path: /n/kubelet/plugins_registry}}
      - {name: cdi, hostPath: {path: /var/run/cdi}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
`

func TestOnTheEmbeddedNode(t *testing.T) {
	objs, err := testdriver.DecodeManifests([]byte(chartDaemonSet))
	if err != nil {
		t.Fatal(err)
	}
	n := Node{Name: "n1", KubeletDir: "/n/kubelet", CDIDir: "/n/cdi", APIServer: "127.0.0.1:6443"}
	devs, err := onTheEmbeddedNode(objs, n)
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.PodSpec
	spec, _, _ := unstructured.NestedMap(objs[0].Object, "spec", "template", "spec")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &pod); err != nil {
		t.Fatal(err)
	}
	c := pod.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	switch {
	case !pod.HostNetwork:
		t.Error("no host network")
	case env["KUBERNETES_SERVICE_HOST"] != "127.0.0.1" || env["KUBERNETES_SERVICE_PORT"] != "6443":
		t.Errorf("the API server's address: %v", env)
	case env["NUM_DEVICES"] != "2":
		t.Errorf("the chart's own variables lost: %v", env)
	case pod.Volumes[1].HostPath.Path != "/n/cdi":
		t.Errorf("CDI volume %q", pod.Volumes[1].HostPath.Path)
	case pod.Volumes[0].HostPath.Path != "/n/kubelet/plugins_registry":
		t.Errorf("the registry volume changed: %q", pod.Volumes[0].HostPath.Path)
	case c.SecurityContext != nil && c.SecurityContext.Privileged != nil:
		t.Error("the container is still privileged")
	}
	if _, ok := env["POD_UID"]; ok {
		t.Error("POD_UID kept: the plugin's sockets would be too long")
	}
	var said []string
	for _, d := range devs {
		if d.Why == "" {
			t.Errorf("deviation %q says no why", d.What)
		}
		said = append(said, d.What)
	}
	for _, want := range []string{"hostNetwork: true", "CDI volume from /n/cdi instead of /var/run/cdi", "no POD_UID", "not privileged"} {
		if !strings.Contains(strings.Join(said, "\n"), want) {
			t.Errorf("deviations %q do not say %q", said, want)
		}
	}
}

func TestOnTheEmbeddedNodeRefusesAnotherChart(t *testing.T) {
	n := Node{Name: "n1", KubeletDir: "/n/kubelet", CDIDir: "/n/cdi", APIServer: "127.0.0.1:6443"}
	for name, tc := range map[string]struct{ yaml, want string }{
		"no DaemonSet":        {"apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n", "renders no DaemonSet"},
		"two DaemonSets":      {chartDaemonSet + "---\n" + strings.Replace(chartDaemonSet, "kubeletplugin", "other", 1), "two DaemonSets"},
		"no CDI volume":       {strings.Replace(chartDaemonSet, "name: cdi", "name: other", 1), `no host-path volume "cdi"`},
		"no plugin container": {strings.Replace(chartDaemonSet, "name: plugin", "name: main", 1), `no container "plugin"`},
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := testdriver.DecodeManifests([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = onTheEmbeddedNode(objs, n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRegistrationLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "kubelet.log")
	before := `I1205 dra_plugin_manager.go:140] "Connection changed" driverName="gpu.example.com" endpoint="/old/dra.sock" connected=true` + "\n"
	after := `I1205 dra_plugin_manager.go:140] "Connection changed" logger="DRA registration handler" driverName="gpu.example.com" endpoint="/n/dra.sock" connected=true`
	if err := os.WriteFile(log, []byte(before+`I1205 "Connection changed" driverName="other.example.com" connected=true`+"\n"+after+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only what the kubelet logged after the install began counts.
	if got := registrationLine(log, int64(len(before)), Driver); got != after {
		t.Errorf("got %q, want %q", got, after)
	}
	if got := registrationLine(log, 1<<20, Driver); got != "" {
		t.Errorf("past the end: %q", got)
	}
}

func TestPodTroubleNamesACrashingContainer(t *testing.T) {
	pods := []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name:                 "plugin",
			RestartCount:         3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "bind: invalid argument"}},
		}}},
	}}
	got := podTrouble(pods)
	for _, want := range []string{"pod p container plugin", "CrashLoopBackOff", "exit 1", "3 restarts", "bind: invalid argument"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
	pods[0].Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "plugin", Ready: true}
	if got := podTrouble(pods); got != "" {
		t.Errorf("a ready container: %q", got)
	}
}
