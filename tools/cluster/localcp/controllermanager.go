package localcp

import (
	"github.com/draconform/draconform/tools/cluster"
)

// controllerManagerArgs runs every default controller except node lifecycle:
// the suite's nodes have no kubelet heartbeats, so that controller would taint
// them and evict the pods under test. Per-controller service-account
// credentials give the resourceclaim controller and the garbage collector the
// RBAC identities their bootstrap roles are written for.
func controllerManagerArgs(kubeconfig string, p *pki, port int, gates cluster.Gates) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--controllers=*,-node-lifecycle-controller",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + p.SAKey,
		"--root-ca-file=" + p.CACert,
	}
	return append(args, servingArgs(port, gates)...)
}
