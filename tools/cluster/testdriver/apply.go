// Package testdriver puts the draconform test DRA driver (drivers/) on a
// cluster whose nodes have kubelets, and waits until it publishes devices:
// kind's clusters and the embedded provider's node install it the same way.
package testdriver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
)

// DecodeManifests splits a multi-document YAML stream into objects,
// skipping empty documents (a leading "---", comments only).
func DecodeManifests(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("document %d has no apiVersion, kind or metadata.name", i)
		}
		out = append(out, u)
	}
}

// ApplyManifests creates every object of data, in order, or replaces it
// where it exists: the driver's namespace comes first in its file, and a
// second run of the same cluster (kind's KeepCluster) must not fail on
// AlreadyExists. Returns "Kind namespace/name" of each, for the log.
func ApplyManifests(ctx context.Context, dyn dynamic.Interface, mapper meta.RESTMapper, data []byte) ([]string, error) {
	objs, err := DecodeManifests(data)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, obj := range objs {
		ri, err := ResourceFor(dyn, mapper, obj)
		if err != nil {
			return applied, err
		}
		ref := DescribeObject(obj)
		cur, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = ri.Create(ctx, obj, metav1.CreateOptions{})
		case err == nil:
			obj.SetResourceVersion(cur.GetResourceVersion())
			_, err = ri.Update(ctx, obj, metav1.UpdateOptions{})
		}
		if err != nil {
			return applied, fmt.Errorf("applying %s: %w", ref, err)
		}
		applied = append(applied, ref)
	}
	return applied, nil
}

// ResourceFor is the client of obj's resource, in obj's namespace for a
// namespaced one (the default namespace where it names none, which it is
// then given); a cluster-scoped object's namespace is cleared.
func ResourceFor(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", DescribeObject(obj), err)
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		obj.SetNamespace("")
		return dyn.Resource(m.Resource), nil
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	return dyn.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
}

// DescribeObject is "Kind namespace/name", or "Kind name" for a
// cluster-scoped object.
func DescribeObject(o *unstructured.Unstructured) string {
	if o.GetNamespace() != "" {
		return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	return o.GetKind() + " " + o.GetName()
}

// Apply is ApplyManifests with clients made from cfg.
func Apply(ctx context.Context, cfg *rest.Config, data []byte) ([]string, error) {
	dyn, mapper, err := cluster.DynamicClients(cfg)
	if err != nil {
		return nil, err
	}
	return ApplyManifests(ctx, dyn, mapper, data)
}
