package localcp

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("%s holds no PEM certificate", path)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	return cert
}

func TestWritePKI(t *testing.T) {
	p, err := writePKI(filepath.Join(t.TempDir(), "pki"))
	if err != nil {
		t.Fatal(err)
	}
	ca := readCert(t, p.CACert)
	if !ca.IsCA {
		t.Error("CA certificate is not marked as a CA")
	}
	srv := readCert(t, p.ServingCert)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := srv.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("serving cert does not verify for %s against the CA: %v", host, err)
		}
	}
	if !slicesContainIP(srv.IPAddresses, "127.0.0.1") {
		t.Errorf("serving cert IP SANs %v lack 127.0.0.1", srv.IPAddresses)
	}
	// A stranger CA must not verify it, or the chain check above proves nothing.
	other, err := writePKI(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	strangers := x509.NewCertPool()
	strangers.AddCert(readCert(t, other.CACert))
	if _, err := srv.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: strangers}); err == nil {
		t.Error("serving cert verifies against another cell's CA")
	}

	keyPEM, err := os.ReadFile(p.SAKey)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		t.Fatal("service-account key file holds no PEM")
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
		t.Errorf("service-account key: %v", err)
	}

	tokens, err := os.ReadFile(p.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.SplitN(strings.TrimSpace(string(tokens)), ",", 4)
	if len(fields) != 4 || fields[0] != p.AdminToken || fields[3] != `"system:masters"` {
		t.Errorf("token file = %q, want token,user,uid,\"system:masters\"", tokens)
	}
	if other.AdminToken == p.AdminToken {
		t.Error("two cells got the same admin token")
	}
}

func slicesContainIP(ips []net.IP, want string) bool {
	for _, ip := range ips {
		if ip.Equal(net.ParseIP(want)) {
			return true
		}
	}
	return false
}

func TestKubeconfigAndRESTConfigAgree(t *testing.T) {
	p, err := writePKI(filepath.Join(t.TempDir(), "pki"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	server := apiserverURL(41234)
	if err := writeKubeconfig(path, server, p.CAPEM, p.AdminToken); err != nil {
		t.Fatal(err)
	}
	fromFile, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("loading written kubeconfig: %v", err)
	}
	direct := adminRESTConfig(server, p.CAPEM, p.AdminToken)
	if fromFile.Host != direct.Host || fromFile.BearerToken != direct.BearerToken ||
		string(fromFile.CAData) != string(direct.CAData) {
		t.Errorf("kubeconfig gives host %q token %q, RESTConfig gives %q %q (or CA differs)",
			fromFile.Host, fromFile.BearerToken, direct.Host, direct.BearerToken)
	}
	if direct.Host != "https://127.0.0.1:41234" || direct.QPS < 100 || direct.Burst < 200 {
		t.Errorf("RESTConfig = host %q QPS %v Burst %d", direct.Host, direct.QPS, direct.Burst)
	}
	// Each call must hand out its own CA bytes, so one caller cannot
	// corrupt another's config.
	direct.CAData[0] ^= 0xff
	if adminRESTConfig(server, p.CAPEM, p.AdminToken).CAData[0] == direct.CAData[0] {
		t.Error("RESTConfig copies share CA bytes")
	}
}
