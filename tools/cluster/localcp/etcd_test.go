package localcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEtcdArgsAskForCertificatesOnBothListeners: the peer listener serves
// raft and lease calls, so it is guarded like the client one.
func TestEtcdArgsAskForCertificatesOnBothListeners(t *testing.T) {
	p := &pki{EtcdCACert: "etcd-ca.crt", EtcdServerCert: "etcd.crt", EtcdServerKey: "etcd.key"}
	args := etcdArgs("/data", p, 2379, 2380)
	for flag, want := range map[string]string{
		"listen-client-urls":    "https://127.0.0.1:2379",
		"listen-peer-urls":      "https://127.0.0.1:2380",
		"client-cert-auth":      "true",
		"peer-client-cert-auth": "true",
		"trusted-ca-file":       "etcd-ca.crt",
		"peer-trusted-ca-file":  "etcd-ca.crt",
		"cert-file":             "etcd.crt",
		"peer-key-file":         "etcd.key",
	} {
		if got := flagValues(args, flag); !slices.Equal(got, []string{want}) {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
}

// TestEtcdRefusesClientsWithoutItsCertificate reads the cell's storage as
// any local user of the machine could: without a certificate, or with one
// the cluster's CA signed (a kubelet's). etcd holds every Secret and takes
// any Pod written into it past admission, so it must answer only the API
// server.
func TestEtcdRefusesClientsWithoutItsCertificate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane (and may build it first)")
	}
	binDir := ensureTestBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := New(Options{BinDir: binDir, OutDir: t.TempDir(), Version: testVersion, Log: testLog{t}})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	c, err := p.Start(ctx, "etcd-auth", nil)
	if err != nil {
		t.Fatal(err)
	}
	lc := c.(*Cluster)
	u, err := url.Parse(lc.etcdURL)
	if err != nil {
		t.Fatal(err)
	}
	peer := etcdPeerURL(t, lc)
	plain := &http.Client{Timeout: 5 * time.Second}
	if code, err := rangeOverRegistry(plain, "http://"+u.Host); err == nil && code == http.StatusOK {
		t.Errorf("etcd at %s answered a plain-HTTP range over /registry/ with no certificate: HTTP %d", u.Host, code)
	} else {
		t.Logf("plain HTTP refused: HTTP %d, %v", code, err)
	}

	etcdCA, kubelet, apiserver := loadEtcdTestCerts(t, lc)
	for _, try := range []struct {
		what   string
		client *http.Client
		base   string
	}{
		{"TLS without a certificate", clientShowing(etcdCA), lc.etcdURL},
		{"a certificate of the cluster's CA", clientShowing(etcdCA, kubelet), lc.etcdURL},
		{"the peer port, plain HTTP", plain, "http://" + peer},
		{"the peer port, TLS without a certificate", clientShowing(etcdCA), "https://" + peer},
	} {
		if code, err := rangeOverRegistry(try.client, try.base); err == nil && code == http.StatusOK {
			t.Errorf("etcd answered %s at %s: HTTP %d", try.what, try.base, code)
		} else {
			t.Logf("%s refused: HTTP %d, %v", try.what, code, err)
		}
	}
	// The same request with the API server's certificate is answered, or
	// the refusals above prove nothing.
	if code, err := rangeOverRegistry(clientShowing(etcdCA, apiserver), lc.etcdURL); err != nil || code != http.StatusOK {
		t.Errorf("etcd refused the API server's certificate: HTTP %d, %v", code, err)
	}
}

// rangeOverRegistry sends the v3 gateway's range over the API server's
// keys: what a stranger would send to read Secrets.
func rangeOverRegistry(client *http.Client, base string) (int, error) {
	body := `{"key":"L3JlZ2lzdHJ5Lw==","range_end":"L3JlZ2lzdHJ5MA==","keys_only":true}`
	resp, err := client.Post(base+"/v3/kv/range", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// loadEtcdTestCerts reads etcd's CA, a client certificate of the cluster's
// CA (the kubelet's) and the API server's etcd client certificate.
func loadEtcdTestCerts(t *testing.T, lc *Cluster) (etcdCA *x509.CertPool, kubelet, apiserver tls.Certificate) {
	t.Helper()
	etcdCA = x509.NewCertPool()
	caPEM, err := os.ReadFile(lc.pki.EtcdCACert)
	if err != nil || !etcdCA.AppendCertsFromPEM(caPEM) {
		t.Fatalf("reading etcd's CA: %v", err)
	}
	kubelet, err = tls.LoadX509KeyPair(lc.pki.KubeletClientCert, lc.pki.KubeletClientKey)
	if err != nil {
		t.Fatal(err)
	}
	apiserver, err = tls.LoadX509KeyPair(lc.pki.EtcdClientCert, lc.pki.EtcdClientKey)
	if err != nil {
		t.Fatal(err)
	}
	return etcdCA, kubelet, apiserver
}

// clientShowing is a client that trusts etcdCA and shows the first of
// certs, or an empty certificate. The certificate is shown whatever CAs
// etcd says it accepts, so that etcd's own check is what refuses it.
func clientShowing(etcdCA *x509.CertPool, certs ...tls.Certificate) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: etcdCA, GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if len(certs) == 0 {
				return &tls.Certificate{}, nil
			}
			return &certs[0], nil
		}},
	}}
}

// etcdPeerURL reads the peer address off etcd's command line.
func etcdPeerURL(t *testing.T, c *Cluster) string {
	t.Helper()
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.procs[Etcd].PID))
	if err != nil {
		t.Fatal(err)
	}
	got := flagValues(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"), "listen-peer-urls")
	if len(got) != 1 {
		t.Fatalf("etcd's command line has --listen-peer-urls %q", got)
	}
	u, err := url.Parse(got[0])
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
