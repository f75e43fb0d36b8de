package sonobuoy

import (
	"fmt"
	"sort"
	"strings"
)

// DeleteLabels are the labels by which `sonobuoy delete --namespace ns`
// finds the ClusterRoles and ClusterRoleBindings of a Sonobuoy run in ns,
// which its namespace's deletion does not remove: it deletes every one
// labelled component=sonobuoy and namespace=<ns> (vmware-tanzu/sonobuoy,
// pkg/client/delete.go, deleteRBAC; --all drops the namespace from the
// selector; cmd/sonobuoy/app/delete.go turns it on wherever the cluster
// serves RBAC). Roles and bindings in other namespaces, and admission
// policies, it leaves.
func DeleteLabels(ns string) map[string]string {
	return map[string]string{"component": "sonobuoy", "namespace": ns}
}

// DeleteSelector is DeleteLabels as a label selector, for the objects
// sonobuoy delete leaves: kubectl delete -l selects them alike.
func DeleteSelector(ns string) string {
	var parts []string
	for k, v := range DeleteLabels(ns) {
		parts = append(parts, fmt.Sprintf("%s=%s", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
