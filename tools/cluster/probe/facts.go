package probe

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Facts are what a run read of a cluster before its cases, for reports and
// certification bundles: the server's version, its nodes with their
// kubelets and runtimes, and the DeviceClasses and ResourceSlices it held.
// Nothing here is a credential.
type Facts struct {
	ServerVersion  string      `json:"serverVersion"`
	Nodes          []NodeFacts `json:"nodes"`
	DeviceClasses  []Object    `json:"deviceClasses"`
	ResourceSlices []Object    `json:"resourceSlices"`
	// Errors are what could not be read, each with its reason.
	Errors []string `json:"errors,omitempty"`
}

// NodeFacts describe one node.
type NodeFacts struct {
	Name    string `json:"name"`
	Ready   bool   `json:"ready"`
	Kubelet string `json:"kubeletVersion"`
	Runtime string `json:"containerRuntimeVersion"`
	OS      string `json:"osImage"`
	Kernel  string `json:"kernelVersion"`
}

// Object is a DRA object as read: its name and spec.
type Object struct {
	Name string         `json:"name"`
	Spec map[string]any `json:"spec"`
}

// ReadFacts reads the facts of the cluster behind cfg; what it cannot read
// is named in Errors rather than failing the read.
func ReadFacts(ctx context.Context, cfg *rest.Config) (Facts, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Facts{}, fmt.Errorf("facts: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Facts{}, fmt.Errorf("facts: %w", err)
	}
	f := Facts{Nodes: []NodeFacts{}}
	if v, err := kube.Discovery().ServerVersion(); err != nil {
		f.Errors = append(f.Errors, "server version: "+err.Error())
	} else {
		f.ServerVersion = v.GitVersion
	}
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		f.Errors = append(f.Errors, "nodes: "+err.Error())
	} else {
		for _, n := range nodes.Items {
			f.Nodes = append(f.Nodes, nodeFacts(n))
		}
	}
	f.DeviceClasses = readObjects(ctx, dyn, deviceClasses, &f.Errors)
	f.ResourceSlices = readObjects(ctx, dyn, resourceSlices, &f.Errors)
	return f, nil
}

func nodeFacts(n corev1.Node) NodeFacts {
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	i := n.Status.NodeInfo
	return NodeFacts{Name: n.Name, Ready: ready, Kubelet: i.KubeletVersion, Runtime: i.ContainerRuntimeVersion, OS: i.OSImage, Kernel: i.KernelVersion}
}

func readObjects(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, errs *[]string) []Object {
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		*errs = append(*errs, gvr.Resource+": "+err.Error())
		return nil
	}
	out := []Object{}
	for _, item := range list.Items {
		spec, _ := item.Object["spec"].(map[string]any)
		out = append(out, Object{Name: item.GetName(), Spec: spec})
	}
	return out
}
