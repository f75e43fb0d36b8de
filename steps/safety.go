package steps

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// checkOwnership refuses objects that could reach beyond the case on a
// shared cluster: a cluster-scoped name another workload might use, a
// DeviceClass that would capture a real extended resource name such as
// nvidia.com/gpu.shared, or a ResourceSlice that would publish devices for a
// real driver. Every such name must carry the case's unique prefix.
func checkOwnership(u *unstructured.Unstructured, namespaced bool, prefix string) error {
	refuse := func(what, got string) error {
		return fmt.Errorf("refusing to create %s %s: %s %q does not contain ${prefix} (%s), so it could touch what draconform does not own", u.GetKind(), u.GetName(), what, got, prefix)
	}
	if !namespaced && !strings.HasPrefix(u.GetName(), prefix) {
		return refuse("its name", u.GetName())
	}
	switch u.GetKind() {
	case "DeviceClass":
		if ern, ok, _ := unstructured.NestedString(u.Object, "spec", "extendedResourceName"); ok && !strings.Contains(ern, prefix) {
			return refuse("spec.extendedResourceName", ern)
		}
	case "ResourceSlice":
		if driver, _, _ := unstructured.NestedString(u.Object, "spec", "driver"); !strings.Contains(driver, prefix) {
			return refuse("spec.driver", driver)
		}
	}
	return nil
}
