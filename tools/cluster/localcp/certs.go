package localcp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the credential material of one cell, as files the components read.
type pki struct {
	CACert      string // PEM; client CA and root CA for service-account tokens
	CAKey       string
	ServingCert string // kube-apiserver serving cert for 127.0.0.1/localhost
	ServingKey  string
	SAKey       string // service-account signing key (private; public half is derived)
	TokenFile   string // static token file with the admin token
	// KubeletClientCert and Key are what kube-apiserver shows a kubelet
	// (for logs and exec); a node's kubelet trusts the CA.
	KubeletClientCert string
	KubeletClientKey  string
	// etcd has a CA of its own, as kubeadm's clusters do: etcd trusts only
	// certificates it signed, so a kubelet's or an admin's certificate from
	// the cluster's CA opens nothing in storage. The server certificate
	// serves both of etcd's listeners (client and peer); the client
	// certificate is the API server's.
	EtcdCACert     string
	EtcdCAKey      string
	EtcdServerCert string
	EtcdServerKey  string
	EtcdClientCert string
	EtcdClientKey  string
	CAPEM          []byte
	AdminToken     string
}

// servingHosts are the names the apiserver is reached by: loopback from the
// suite, and the in-cluster service names for completeness.
func servingHosts() []string {
	return []string{"127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "10.0.0.1"}
}

const (
	adminUser  = "draconform-admin"
	adminGroup = "system:masters"
)

// writePKI creates a fresh CA, serving cert, service-account key and admin
// token under dir. Nothing is reused across cells, so cells cannot see each
// other's clusters.
func writePKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating pki dir: %w", err)
	}
	p := pkiIn(dir)
	caCert, caKey, caDER, err := newCA("draconform-local-ca")
	if err != nil {
		return nil, err
	}
	srvDER, srvKey, err := servingCert(caCert, caKey)
	if err != nil {
		return nil, err
	}
	// RSA, because every consumer of service-account keys accepts it.
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generating service-account key: %w", err)
	}

	p.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	p.AdminToken = randomHex(32)
	files := []struct {
		path string
		data []byte
	}{
		{p.CACert, p.CAPEM},
		{p.CAKey, ecKeyPEM(caKey)},
		{p.ServingCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER})},
		{p.ServingKey, ecKeyPEM(srvKey)},
		{p.SAKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)})},
		{p.TokenFile, []byte(fmt.Sprintf("%s,%s,%s,\"%s\"\n", p.AdminToken, adminUser, adminUser, adminGroup))},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	// system:masters, so that a kubelet's webhook authorization lets the
	// API server read logs without a role of its own.
	kubeletClient := clientCertTemplate("kube-apiserver-kubelet-client", adminGroup)
	if err := p.issue(kubeletClient, p.KubeletClientCert, p.KubeletClientKey); err != nil {
		return nil, err
	}
	if err := p.writeEtcdPKI(); err != nil {
		return nil, err
	}
	return p, nil
}

// pkiIn names the files of a control plane's PKI in dir.
func pkiIn(dir string) *pki {
	return &pki{
		CACert:      filepath.Join(dir, "ca.crt"),
		CAKey:       filepath.Join(dir, "ca.key"),
		ServingCert: filepath.Join(dir, "apiserver.crt"),
		ServingKey:  filepath.Join(dir, "apiserver.key"),
		SAKey:       filepath.Join(dir, "sa.key"),
		TokenFile:   filepath.Join(dir, "tokens.csv"),

		KubeletClientCert: filepath.Join(dir, "apiserver-kubelet-client.crt"),
		KubeletClientKey:  filepath.Join(dir, "apiserver-kubelet-client.key"),

		EtcdCACert:     filepath.Join(dir, "etcd-ca.crt"),
		EtcdCAKey:      filepath.Join(dir, "etcd-ca.key"),
		EtcdServerCert: filepath.Join(dir, "etcd-server.crt"),
		EtcdServerKey:  filepath.Join(dir, "etcd-server.key"),
		EtcdClientCert: filepath.Join(dir, "apiserver-etcd-client.crt"),
		EtcdClientKey:  filepath.Join(dir, "apiserver-etcd-client.key"),
	}
}

// servingCert issues the API server's serving certificate, for every name
// and address servingHosts gives, signed by the CA; it returns the
// certificate (DER) and its key.
func servingCert(caCert *x509.Certificate, caKey *ecdsa.PrivateKey) ([]byte, *ecdsa.PrivateKey, error) {
	now := time.Now()
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating serving key: %w", err)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range servingHosts() {
		if ip := net.ParseIP(h); ip != nil {
			srvTmpl.IPAddresses = append(srvTmpl.IPAddresses, ip)
		} else {
			srvTmpl.DNSNames = append(srvTmpl.DNSNames, h)
		}
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing serving cert: %w", err)
	}
	return srvDER, srvKey, nil
}

// writeEtcdPKI creates etcd's CA, its serving certificate for 127.0.0.1
// and the API server's client certificate.
func (p *pki) writeEtcdPKI() error {
	_, key, der, err := newCA("draconform-etcd-ca")
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.EtcdCACert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", p.EtcdCACert, err)
	}
	if err := os.WriteFile(p.EtcdCAKey, ecKeyPEM(key), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", p.EtcdCAKey, err)
	}
	// Client auth too: etcd shows its peer certificate when it dials a
	// peer, and the peer listener asks for one.
	server := clientCertTemplate("draconform-etcd")
	server.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	server.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	if err := issueFrom(p.EtcdCACert, p.EtcdCAKey, server, p.EtcdServerCert, p.EtcdServerKey); err != nil {
		return err
	}
	return issueFrom(p.EtcdCACert, p.EtcdCAKey, clientCertTemplate("kube-apiserver-etcd-client"), p.EtcdClientCert, p.EtcdClientKey)
}

// newCA makes a self-signed CA certificate and its key.
func newCA(cn string) (*x509.Certificate, *ecdsa.PrivateKey, []byte, error) {
	now := time.Now()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generating the key of %s: %w", cn, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("self-signing %s: %w", cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parsing %s: %w", cn, err)
	}
	return cert, key, der, nil
}

func clientCertTemplate(cn string, orgs ...string) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// issue signs tmpl with the cell's CA and writes the certificate and a new
// key, as PEM files.
func (p *pki) issue(tmpl *x509.Certificate, certPath, keyPath string) error {
	return issueFrom(p.CACert, p.CAKey, tmpl, certPath, keyPath)
}

// issueFrom is issue with the CA in caCertPath and caKeyPath.
func issueFrom(caCertPath, caKeyPath string, tmpl *x509.Certificate, certPath, keyPath string) error {
	ca, caKey, err := loadCA(caCertPath, caKeyPath)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating a key for %s: %w", tmpl.Subject.CommonName, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("signing a certificate for %s: %w", tmpl.Subject.CommonName, err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", certPath, err)
	}
	if err := os.WriteFile(keyPath, ecKeyPEM(key), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", keyPath, err)
	}
	return nil
}

func loadCA(certPath, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA key: %w", err)
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("the CA files %s, %s hold no PEM", certPath, keyPath)
	}
	ca, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing the CA: %w", err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing the CA key: %w", err)
	}
	return ca, key, nil
}

func ecKeyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		// Only fails for curves x509 does not know; P-256 is always known.
		panic(fmt.Sprintf("marshalling P-256 key: %v", err))
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(fmt.Sprintf("reading crypto/rand: %v", err))
	}
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
