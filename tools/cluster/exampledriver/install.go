package exampledriver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/testdriver"
)

// Images is the node's image store.
type Images interface {
	Import(ctx context.Context, archive string) error
	Remove(ctx context.Context, ref string) error
	Has(ctx context.Context, ref string) (bool, error)
}

// Clients are what Install talks to the cluster with.
type Clients struct {
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
	Core    kubernetes.Interface
}

// Installed is what Install created, for Remove.
type Installed struct {
	plan     *Plan
	c        Clients
	images   Images
	imported bool
	// namespace says the namespace was created; created are the chart's
	// objects created, in order.
	namespace bool
	created   []*unstructured.Unstructured
	// pods are the plugin pods seen, whose folders the kubelet removes.
	pods map[types.UID]string
	// kubeletLogFrom is the kubelet log's size when Install began: the
	// registration of this install is logged after it.
	kubeletLogFrom int64
}

// Install creates what p describes, in its order: the image on the node,
// the namespace, the chart's objects. It first checks that none of it, and
// none of what the driver makes, is there already, so that Remove removes
// only this install's: then it returns no Installed. Where it fails later
// the Installed it returns holds what it created: Remove it.
func Install(ctx context.Context, c Clients, p *Plan, images Images) (*Installed, error) {
	inst := &Installed{plan: p, c: c, images: images, pods: map[types.UID]string{}}
	if there := inst.present(ctx); len(there) > 0 {
		return nil, fmt.Errorf("the example driver's things are on the cluster or node %s already (another install still running, or one that was killed: remove them first): %v", p.Node.Name, there)
	}
	if fi, err := os.Stat(p.Node.KubeletLog); err == nil {
		inst.kubeletLogFrom = fi.Size()
	}
	if err := images.Import(ctx, p.Archive); err != nil {
		return inst, fmt.Errorf("importing the example driver's image: %w", err)
	}
	inst.imported = true
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}
	if _, err := c.Core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return inst, fmt.Errorf("creating namespace %s: %w", p.Namespace, err)
	}
	inst.namespace = true
	for _, o := range p.Objects {
		ri, err := testdriver.ResourceFor(c.Dynamic, c.Mapper, o)
		if err != nil {
			return inst, err
		}
		if _, err := ri.Create(ctx, o, metav1.CreateOptions{}); err != nil {
			return inst, fmt.Errorf("creating %s: %w", testdriver.DescribeObject(o), err)
		}
		inst.created = append(inst.created, o)
	}
	return inst, nil
}

// present lists what of the install is on the cluster or the node.
func (inst *Installed) present(ctx context.Context) []string {
	p, c := inst.plan, inst.c
	var out []string
	if _, err := c.Core.CoreV1().Namespaces().Get(ctx, p.Namespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		out = append(out, describeGet("Namespace "+p.Namespace, err))
	}
	for _, o := range p.Objects {
		ri, err := testdriver.ResourceFor(c.Dynamic, c.Mapper, o.DeepCopy())
		if err == nil {
			_, err = ri.Get(ctx, o.GetName(), metav1.GetOptions{})
		}
		if !apierrors.IsNotFound(err) {
			out = append(out, describeGet(testdriver.DescribeObject(o), err))
		}
	}
	slices, err := inst.slices(ctx)
	switch {
	case err != nil:
		out = append(out, "ResourceSlices of "+Driver+" (cannot tell: "+err.Error()+")")
	case len(slices) > 0:
		out = append(out, fmt.Sprintf("%d ResourceSlices of %s on node %s", len(slices), Driver, p.Node.Name))
	}
	switch has, err := inst.images.Has(ctx, p.Image); {
	case err != nil:
		out = append(out, "image "+p.Image+" (cannot tell: "+err.Error()+")")
	case has:
		out = append(out, "image "+p.Image+" on node "+p.Node.Name)
	}
	out = append(out, existingFiles(DriverFiles(p.Node))...)
	for uid := range inst.pods {
		dir := filepath.Join(p.Node.KubeletDir, "pods", string(uid))
		if _, err := os.Stat(dir); err == nil {
			out = append(out, "pod folder "+dir)
		}
	}
	return out
}

func describeGet(what string, err error) string {
	if err != nil {
		return what + " (cannot tell: " + err.Error() + ")"
	}
	return what
}

func existingFiles(patterns []string) []string {
	var out []string
	for _, pat := range patterns {
		m, _ := filepath.Glob(pat)
		out = append(out, m...)
	}
	return out
}

// slices are the driver's ResourceSlices of the plan's node.
func (inst *Installed) slices(ctx context.Context) ([]string, error) {
	list, err := inst.c.Core.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: sliceSelector(inst.plan.Node.Name)})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return names, nil
}

func sliceSelector(node string) string {
	return "spec.driver=" + Driver + ",spec.nodeName=" + node
}

// daemonSets are the DaemonSets among the created objects.
func (inst *Installed) daemonSets() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range inst.created {
		if o.GetKind() == "DaemonSet" {
			out = append(out, o)
		}
	}
	return out
}

// Remove deletes everything Install created and what the driver made, and
// returns an error naming what is left. The plugin's pods go first, so the
// driver stops with its permissions still granted; its ResourceSlices are
// deleted then rather than after the kubelet's grace period for a plugin
// that went away.
func (inst *Installed) Remove(ctx context.Context) error {
	var errs []error
	if err := inst.deletePods(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, o := range slices.Backward(inst.created) {
		if o.GetKind() == "DaemonSet" {
			continue // deleted above
		}
		if err := inst.delete(ctx, o); err != nil {
			errs = append(errs, err)
		}
	}
	if err := inst.c.Core.ResourceV1().ResourceSlices().DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{FieldSelector: sliceSelector(inst.plan.Node.Name)}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("deleting the ResourceSlices of %s: %w", Driver, err))
	}
	if inst.namespace {
		err := inst.c.Core.CoreV1().Namespaces().Delete(ctx, inst.plan.Namespace, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", inst.plan.Namespace, err))
		}
	}
	if inst.imported {
		if err := inst.images.Remove(ctx, inst.plan.Image); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range existingFiles(DriverFiles(inst.plan.Node)) {
		if err := os.RemoveAll(f); err != nil {
			errs = append(errs, fmt.Errorf("removing the driver's %s: %w", f, err))
		}
	}
	// The namespace controller, the kubelet's pod cleanup and the slice
	// deletions take a moment.
	var left []string
	_ = cluster.Poll(ctx, 2*time.Minute, time.Second, func(ctx context.Context) (bool, error) {
		left = inst.present(ctx)
		return len(left) == 0, nil
	})
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("left on the cluster or node: %v", left))
	}
	return errors.Join(errs...)
}

// deletePods deletes the DaemonSets created and waits for their pods to be
// gone from the API server.
func (inst *Installed) deletePods(ctx context.Context) error {
	var errs []error
	for _, ds := range inst.daemonSets() {
		if err := inst.delete(ctx, ds); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 || len(inst.daemonSets()) == 0 {
		return errors.Join(errs...)
	}
	ns := inst.plan.Namespace
	var left int
	err := cluster.Poll(ctx, 2*time.Minute, time.Second, func(ctx context.Context) (bool, error) {
		pods, err := inst.c.Core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, p := range pods.Items {
			inst.pods[p.UID] = p.Name
		}
		left = len(pods.Items)
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the plugin's pods in %s to go (%d left): %w", ns, left, err)
	}
	return nil
}

func (inst *Installed) delete(ctx context.Context, o *unstructured.Unstructured) error {
	ri, err := testdriver.ResourceFor(inst.c.Dynamic, inst.c.Mapper, o)
	if err != nil {
		return err
	}
	bg := metav1.DeletePropagationBackground
	if err := ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", testdriver.DescribeObject(o), err)
	}
	return nil
}
