package localcp

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/draconform/draconform/tools/cluster/localproc"
)

// etcdProbe asks etcd as the API server does: with the client certificate
// etcd's CA signed, checking etcd's own against that CA.
func etcdProbe(url string, p *pki) (localproc.Probe, error) {
	caPEM, err := os.ReadFile(p.EtcdCACert)
	if err != nil {
		return localproc.Probe{}, fmt.Errorf("reading etcd's CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return localproc.Probe{}, fmt.Errorf("no certificate in %s", p.EtcdCACert)
	}
	cert, err := tls.LoadX509KeyPair(p.EtcdClientCert, p.EtcdClientKey)
	if err != nil {
		return localproc.Probe{}, fmt.Errorf("loading etcd's client certificate: %w", err)
	}
	return localproc.ClientProbe(url, &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}), nil
}
