package localcp

import (
	"github.com/draconform/draconform/tools/cluster"
)

// controllerManagerArgs runs every default controller except node lifecycle:
// the suite's nodes have no kubelet heartbeats, so that controller would taint
// them and evict the pods under test. Per-controller service-account
// credentials give the resourceclaim controller and the garbage collector the
// RBAC identities their bootstrap roles are written for.
//
// Those credentials are why the client rate is raised: the manager creates a
// service account and requests a token for each of its ~50 controllers before
// any of them runs, ~150 requests that its default 20 QPS (burst 30) spread
// over ~5 s of every control plane's start (measured: ready in 5.2 s, 0.7 s
// with the rate of the suite's other clients).
func controllerManagerArgs(kubeconfig string, p *pki, port int, gates cluster.Gates) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--controllers=*,-node-lifecycle-controller",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + p.SAKey,
		"--root-ca-file=" + p.CACert,
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	}
	return append(args, servingArgs(port, gates)...)
}
