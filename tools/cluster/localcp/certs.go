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
	CAPEM             []byte
	AdminToken        string
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
	p := &pki{
		CACert:      filepath.Join(dir, "ca.crt"),
		CAKey:       filepath.Join(dir, "ca.key"),
		ServingCert: filepath.Join(dir, "apiserver.crt"),
		ServingKey:  filepath.Join(dir, "apiserver.key"),
		SAKey:       filepath.Join(dir, "sa.key"),
		TokenFile:   filepath.Join(dir, "tokens.csv"),

		KubeletClientCert: filepath.Join(dir, "apiserver-kubelet-client.crt"),
		KubeletClientKey:  filepath.Join(dir, "apiserver-kubelet-client.key"),
	}
	now := time.Now()

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "draconform-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("self-signing CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("parsing CA: %w", err)
	}

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating serving key: %w", err)
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
		return nil, fmt.Errorf("signing serving cert: %w", err)
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
	return p, nil
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
	ca, caKey, err := p.loadCA()
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

func (p *pki) loadCA() (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPEM, err := os.ReadFile(p.CACert)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA: %w", err)
	}
	keyPEM, err := os.ReadFile(p.CAKey)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CA key: %w", err)
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("the CA files %s, %s hold no PEM", p.CACert, p.CAKey)
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
