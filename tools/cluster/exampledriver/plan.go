package exampledriver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"

	"github.com/draconform/draconform/tools/cluster/testdriver"
)

// Plan is what Install will create on one node, known before it acts.
type Plan struct {
	Node    Node
	Version string
	// Image is the plugin's image, Archive its file to import.
	Image, Archive string
	// Namespace is created first, as helm install --create-namespace does;
	// Objects are the chart's, in the order helm installs them.
	Namespace string
	Objects   []*unstructured.Unstructured
	// Deviations are where Objects differ from the chart (onTheEmbeddedNode).
	Deviations []Deviation
	// WorkDir holds the values, the rendered chart and the image archive.
	WorkDir string
}

// Prepare builds the image archive and renders the chart for node, with
// the capabilities the cluster reports: nothing is created on the cluster
// or the node yet.
func Prepare(ctx context.Context, dc discovery.DiscoveryInterface, mapper meta.RESTMapper, b Binaries, n Node, workDir string) (*Plan, error) {
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", workDir, err)
	}
	c, err := capabilities(dc)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	objs, err := Render(ctx, b, Values(Settings{Node: n, Version: b.Version, HealthPort: ports[0], MetricsPort: ports[1]}), c, workDir)
	if err != nil {
		return nil, err
	}
	devs, err := onTheEmbeddedNode(objs, n)
	if err != nil {
		return nil, err
	}
	if err := scope(mapper, objs); err != nil {
		return nil, err
	}
	archive, err := WriteImage(b, workDir)
	if err != nil {
		return nil, err
	}
	return &Plan{Node: n, Version: b.Version, Image: Image(b.Version), Archive: archive, Namespace: Namespace,
		Objects: objs, Deviations: devs, WorkDir: workDir}, nil
}

// capabilities are the cluster's version and group/versions, which helm
// install gives the chart's .Capabilities (the chart picks the
// resource.k8s.io version of its DeviceClass by them).
func capabilities(dc discovery.DiscoveryInterface) (Cluster, error) {
	v, err := dc.ServerVersion()
	if err != nil {
		return Cluster{}, fmt.Errorf("asking the cluster's version: %w", err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return Cluster{}, fmt.Errorf("asking the cluster's API groups: %w", err)
	}
	c := Cluster{KubeVersion: v.GitVersion}
	for _, g := range groups.Groups {
		for _, gv := range g.Versions {
			c.APIVersions = append(c.APIVersions, gv.GroupVersion)
		}
	}
	return c, nil
}

// scope checks that the cluster serves every kind the chart renders, and
// clears the namespace helm gives a cluster-scoped object, so that what
// Describe says is what Install creates.
func scope(mapper meta.RESTMapper, objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("the chart renders %s, which the cluster does not serve: %w", testdriver.DescribeObject(o), err)
		}
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			o.SetNamespace("")
		}
	}
	return nil
}

// freePorts are n TCP ports free on the machine now.
func freePorts(n int) ([]int, error) {
	var out []int
	var open []net.Listener
	defer func() {
		for _, l := range open {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		open = append(open, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// DriverFiles are the node's files the driver writes: its plugin folder
// (sockets, checkpoint), its registration socket, its CDI specs. Install
// refuses to start where one exists, so that what Remove deletes was the
// driver's of this install.
func DriverFiles(n Node) []string {
	return []string{
		filepath.Join(n.KubeletDir, "plugins", Driver),
		filepath.Join(n.KubeletDir, "plugins_registry", Driver+"-*"),
		// The CDI vendor of the driver's specs is k8s.<driver>.
		filepath.Join(n.CDIDir, "k8s."+Driver+"*"),
	}
}

// Describe says what Install will create, and what the driver will make
// that Remove removes too.
func (p *Plan) Describe() []string {
	out := []string{
		fmt.Sprintf("image %s in node %s's containerd (from %s)", p.Image, p.Node.Name, p.Archive),
		"Namespace " + p.Namespace + " (as helm install --create-namespace)",
	}
	for _, o := range p.Objects {
		out = append(out, testdriver.DescribeObject(o))
	}
	out = append(out,
		fmt.Sprintf("and, made by the driver: its ResourceSlices of node %s, the DaemonSet's pods and their claims' CDI specs, files %s",
			p.Node.Name, strings.Join(DriverFiles(p.Node), ", ")))
	return out
}
