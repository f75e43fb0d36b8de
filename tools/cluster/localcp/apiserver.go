package localcp

import (
	"fmt"
	"strconv"

	"github.com/draconform/draconform/tools/cluster"
)

// apiserverParams is what the kube-apiserver command line is rendered from.
type apiserverParams struct {
	pki              *pki
	certDir          string
	etcdURL          string
	port             int
	gates            cluster.Gates
	storageMediaType string
	extra            []string // appended last, so they override ours
}

func apiserverArgs(p apiserverParams) []string {
	args := []string{
		"--etcd-servers=" + p.etcdURL,
		"--etcd-cafile=" + p.pki.EtcdCACert,
		"--etcd-certfile=" + p.pki.EtcdClientCert,
		"--etcd-keyfile=" + p.pki.EtcdClientKey,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(p.port),
		"--cert-dir=" + p.certDir,
		"--tls-cert-file=" + p.pki.ServingCert,
		"--tls-private-key-file=" + p.pki.ServingKey,
		"--client-ca-file=" + p.pki.CACert,
		"--token-auth-file=" + p.pki.TokenFile,
		"--authorization-mode=Node,RBAC",
		// Beside the default plugins: the Node authorizer lets a kubelet
		// read what its node needs, NodeRestriction holds its writes to its
		// own Node, Lease, pods and ResourceSlices, as in a kubeadm cluster.
		"--enable-admission-plugins=NodeRestriction",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.pki.SAKey,
		"--service-account-signing-key-file=" + p.pki.SAKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// The default reconciler refuses a loopback advertise address, and
		// nothing in the suite needs the kubernetes service endpoints.
		"--endpoint-reconciler-type=none",
		"--runtime-config=resource.k8s.io/v1=true,resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true",
		// For a node's kubelet (logs): the API server proves itself with a
		// client certificate, checks the kubelet's serving certificate
		// against the cell's CA, and dials the node's IP, since the node
		// name does not resolve.
		"--kubelet-client-certificate=" + p.pki.KubeletClientCert,
		"--kubelet-client-key=" + p.pki.KubeletClientKey,
		"--kubelet-certificate-authority=" + p.pki.CACert,
		"--kubelet-preferred-address-types=InternalIP",
	}
	if f := p.gates.Flag(); f != "" {
		args = append(args, "--feature-gates="+f)
	}
	if p.storageMediaType != "" {
		args = append(args, "--storage-media-type="+p.storageMediaType)
	}
	return append(args, p.extra...)
}

func apiserverURL(port int) string {
	return fmt.Sprintf("https://127.0.0.1:%d", port)
}
