package localcp

import "fmt"

// etcdArgs runs a single-member etcd on loopback. fsync is off: the data only
// lives as long as the cell, and fsync dominates etcd latency on shared disks.
//
// Both listeners take TLS and ask for a certificate etcd's own CA signed:
// loopback is open to every user of the machine, and etcd answers whoever
// reaches it with every Secret, and stores any Pod past admission for the
// root kubelet to run. Peer traffic (raft, member and lease calls) is
// guarded the same way.
func etcdArgs(dataDir string, p *pki, clientPort, peerPort int) []string {
	client := etcdClientURL(clientPort)
	peer := fmt.Sprintf("https://127.0.0.1:%d", peerPort)
	return []string{
		"--name=default",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--client-cert-auth=true",
		"--trusted-ca-file=" + p.EtcdCACert,
		"--cert-file=" + p.EtcdServerCert,
		"--key-file=" + p.EtcdServerKey,
		"--peer-client-cert-auth=true",
		"--peer-trusted-ca-file=" + p.EtcdCACert,
		"--peer-cert-file=" + p.EtcdServerCert,
		"--peer-key-file=" + p.EtcdServerKey,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func etcdClientURL(port int) string {
	return fmt.Sprintf("https://127.0.0.1:%d", port)
}
