package sonobuoy

import (
	"context"
	"fmt"
	"reflect"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// object is a typed API object of the install.
type object interface {
	metav1.Object
	runtime.Object
}

// typedClient is what Apply uses of a typed client-go client: client-go's
// clients of each kind have these methods, for their own type.
type typedClient[T object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// store reads and writes objects of one kind (and namespace).
type store struct {
	get    func(ctx context.Context, name string) (object, error)
	create func(ctx context.Context, o object) (object, error)
	update func(ctx context.Context, o object) error
}

// fieldManager names draconform as the writer, in managedFields.
const fieldManager = "draconform"

func storeOf[T object](c typedClient[T]) store {
	return store{
		get: func(ctx context.Context, name string) (object, error) {
			o, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err // never a typed nil in the interface
			}
			return o, nil
		},
		create: func(ctx context.Context, o object) (object, error) {
			got, err := c.Create(ctx, o.(T), metav1.CreateOptions{FieldManager: fieldManager})
			if err != nil {
				return nil, err
			}
			return got, nil
		},
		update: func(ctx context.Context, o object) error {
			_, err := c.Update(ctx, o.(T), metav1.UpdateOptions{FieldManager: fieldManager})
			return err
		},
	}
}

// storeFor is the store of o's kind, in o's namespace.
func storeFor(kube kubernetes.Interface, o object) (store, error) {
	switch o.(type) {
	case *corev1.Namespace:
		return storeOf[*corev1.Namespace](kube.CoreV1().Namespaces()), nil
	case *corev1.ServiceAccount:
		return storeOf[*corev1.ServiceAccount](kube.CoreV1().ServiceAccounts(o.GetNamespace())), nil
	case *rbacv1.ClusterRole:
		return storeOf[*rbacv1.ClusterRole](kube.RbacV1().ClusterRoles()), nil
	case *rbacv1.ClusterRoleBinding:
		return storeOf[*rbacv1.ClusterRoleBinding](kube.RbacV1().ClusterRoleBindings()), nil
	case *rbacv1.Role:
		return storeOf[*rbacv1.Role](kube.RbacV1().Roles(o.GetNamespace())), nil
	case *rbacv1.RoleBinding:
		return storeOf[*rbacv1.RoleBinding](kube.RbacV1().RoleBindings(o.GetNamespace())), nil
	case *admissionv1.ValidatingAdmissionPolicy:
		return storeOf[*admissionv1.ValidatingAdmissionPolicy](kube.AdmissionregistrationV1().ValidatingAdmissionPolicies()), nil
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		return storeOf[*admissionv1.ValidatingAdmissionPolicyBinding](kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()), nil
	}
	return store{}, fmt.Errorf("the plugin's install holds a %T, which --apply cannot write", o)
}

// describe is "Kind namespace/name", or "Kind name" of a cluster-scoped
// object.
func describe(o object) string {
	kind := reflect.TypeOf(o).Elem().Name()
	if ns := o.GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + o.GetName()
	}
	return kind + " " + o.GetName()
}
