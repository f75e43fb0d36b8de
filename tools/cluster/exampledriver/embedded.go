package exampledriver

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Node is the embedded node the driver goes on.
type Node struct {
	// Name is the Node object's name.
	Name string
	// KubeletDir is the kubelet's --root-dir, CDIDir the folder the node's
	// containerd reads CDI specs from.
	KubeletDir, CDIDir string
	// APIServer is host:port of the API server as the node reaches it.
	APIServer string
	// KubeletLog is the file the node's kubelet logs to (at -v=2 or more),
	// where the plugin's registration shows; empty if not known.
	KubeletLog string
}

// The chart's names this package relies on: its DaemonSet's container and
// its volume of CDI specs (templates/kubeletplugin.yaml).
const (
	pluginContainer = "plugin"
	cdiVolume       = "cdi"
)

// Deviation is one way the objects differ from what the chart renders.
type Deviation struct{ What, Why string }

// onTheEmbeddedNode is the one place where draconform deviates from the
// driver's chart, for what the chart has no value for; it changes the
// kubelet plugin's DaemonSet and returns what it did, for the reader.
//   - Host network, and KUBERNETES_SERVICE_HOST/PORT naming the API server:
//     the embedded node runs no kube-proxy and its pod bridge has no
//     gateway (nothing on the machine changes for it), so a pod in its own
//     network reaches neither the kubernetes Service nor 127.0.0.1, where
//     the API server listens. client-go's in-cluster config reads the two
//     variables, and a container's own env wins over the kubelet's.
//   - The CDI volume's host path: the chart mounts the node's /var/run/cdi,
//     a fixed path, and the node's containerd reads CDI specs from its own
//     folder, so that nodes side by side and the machine's own runtime do
//     not see each other's specs. The path in the container stays the
//     chart's.
//   - No POD_UID: given its pod's UID the plugin names its sockets with it
//     (for a rolling update of the DaemonSet, which the suite never does),
//     and the registration socket in the node's kubelet folder would be 113
//     bytes long, more than a Unix socket's path may be (108): neither the
//     plugin nor the kubelet could use it. Without it the plugin uses the
//     names it had before rolling updates.
//   - No privileged container: the embedded API server keeps Kubernetes'
//     default --allow-privileged=false (a privileged container on this node
//     would see the machine's devices and kernel settings), and the plugin
//     needs no privilege here: as root it writes only to its host-path
//     folders (sockets, checkpoint, CDI specs) and uses no real device.
//
// The kubelet's registry and plugin folders, the image, the node it runs on
// and its ports are chart values (Values), not deviations.
func onTheEmbeddedNode(objs []*unstructured.Unstructured, n Node) ([]Deviation, error) {
	host, port, err := net.SplitHostPort(n.APIServer)
	if err != nil {
		return nil, fmt.Errorf("the API server's address %q: %w", n.APIServer, err)
	}
	ds, err := pluginDaemonSet(objs)
	if err != nil {
		return nil, err
	}
	var pod corev1.PodSpec
	spec, _, _ := unstructured.NestedMap(ds.Object, "spec", "template", "spec")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &pod); err != nil {
		return nil, fmt.Errorf("reading DaemonSet %s's pod: %w", ds.GetName(), err)
	}
	c := container(&pod, pluginContainer)
	if c == nil {
		return nil, fmt.Errorf("DaemonSet %s has no container %q", ds.GetName(), pluginContainer)
	}
	v := volume(&pod, cdiVolume)
	if v == nil || v.HostPath == nil {
		return nil, fmt.Errorf("DaemonSet %s has no host-path volume %q for CDI specs", ds.GetName(), cdiVolume)
	}
	chartCDI := v.HostPath.Path
	v.HostPath.Path = n.CDIDir
	podUID := removeEnv(c, "POD_UID")
	pod.HostNetwork = true
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	if privileged {
		c.SecurityContext.Privileged = nil
	}
	setEnv(c, "KUBERNETES_SERVICE_HOST", host)
	setEnv(c, "KUBERNETES_SERVICE_PORT", port)
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pod)
	if err != nil {
		return nil, fmt.Errorf("writing DaemonSet %s's pod: %w", ds.GetName(), err)
	}
	if err := unstructured.SetNestedMap(ds.Object, out, "spec", "template", "spec"); err != nil {
		return nil, fmt.Errorf("writing DaemonSet %s's pod: %w", ds.GetName(), err)
	}
	devs := []Deviation{
		{What: "hostNetwork: true, KUBERNETES_SERVICE_HOST=" + host + " KUBERNETES_SERVICE_PORT=" + port,
			Why: "the node has no kube-proxy and its pod bridge no gateway: the API server is reached on the node's 127.0.0.1"},
		{What: "CDI volume from " + n.CDIDir + " instead of " + chartCDI,
			Why: "the node's containerd reads CDI specs from its own folder"},
	}
	if podUID {
		devs = append(devs, Deviation{What: "no POD_UID in container " + pluginContainer,
			Why: "the sockets the plugin names with its pod's UID would be too long for a Unix socket under the node's kubelet folder"})
	}
	if privileged {
		devs = append(devs, Deviation{What: "container " + pluginContainer + " not privileged",
			Why: "the embedded API server allows no privileged container (Kubernetes' default), and the plugin needs none: it writes only to its host-path folders"})
	}
	return devs, nil
}

// pluginDaemonSet is the chart's one DaemonSet, the kubelet plugin's.
func pluginDaemonSet(objs []*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var ds *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "DaemonSet" {
			if ds != nil {
				return nil, fmt.Errorf("the chart renders two DaemonSets, %s and %s; draconform knows one, the kubelet plugin", ds.GetName(), o.GetName())
			}
			ds = o
		}
	}
	if ds == nil {
		return nil, fmt.Errorf("the chart renders no DaemonSet: no kubelet plugin to run")
	}
	return ds, nil
}

func container(pod *corev1.PodSpec, name string) *corev1.Container {
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	return nil
}

func volume(pod *corev1.PodSpec, name string) *corev1.Volume {
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == name {
			return &pod.Volumes[i]
		}
	}
	return nil
}

// removeEnv removes the variable name from c and says whether it was there.
func removeEnv(c *corev1.Container, name string) bool {
	for i := range c.Env {
		if c.Env[i].Name == name {
			c.Env = append(c.Env[:i], c.Env[i+1:]...)
			return true
		}
	}
	return false
}

func setEnv(c *corev1.Container, name, value string) {
	for i := range c.Env {
		if c.Env[i].Name == name {
			c.Env[i] = corev1.EnvVar{Name: name, Value: value}
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
}
