package secretscan

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each shape must be found, or the scan that says "no credential" proves
// nothing.
func TestFindsEachShape(t *testing.T) {
	for name, text := range map[string]string{
		"a PEM private key":                          testKey(t),
		"inline kubeconfig client key":               "users:\n- user:\n    client-key-data: LS0tLS1CRUdJTg==\n",
		"inline kubeconfig token":                    "users:\n- user:\n    token: abcdef0123456789\n",
		"a bearer token in a header":                 "I1202 request.go] Authorization: Bearer abcdefgh12345678\n",
		"a JSON Web Token (a service account token)": `{"msg":"eyJhbGciOiJSUzI1NiIs.eyJhdWQiOlsiaHR0cHM6Ly9r.sig"}`,
		"a bearer token in JSON":                     `{"BearerToken": "s3cr3t-t0ken-value"}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Scan(dir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Kind != name {
			t.Errorf("%s: found %v", name, got)
		}
		if len(got) > 0 && strings.Contains(got[0].String(), "s3cr3t") {
			t.Errorf("a finding repeats the secret: %s", got[0])
		}
	}
}

func TestCleanFilesAndOldFiles(t *testing.T) {
	dir := t.TempDir()
	clean := "users:\n- user:\n    client-key: /var/lib/pki/admin.key\n    tokenFile: /var/run/secrets/token\n" +
		"draconform: pod p1 got shareID 1f2e and token-bucket 3\n"
	if err := os.WriteFile(filepath.Join(dir, "report.txt"), []byte(clean), 0o600); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old-kubeconfig")
	if err := os.WriteFile(old, []byte("    token: abcdef0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	got, err := Scan(dir, time.Now().Add(-time.Minute), "the-issued-one")
	if err != nil || len(got) != 0 {
		t.Errorf("paths to credentials, words like token, and files older than since are no finding: %v %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log"), []byte("x the-issued-one y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ = Scan(dir, time.Time{}, "the-issued-one")
	if len(got) != 2 { // the old kubeconfig's token and the issued string
		t.Errorf("want the old token and the issued string, got %v", got)
	}
}

// A report with one very long line is read, a token at its end found; a
// program the run built is passed over, though it holds PEM markers.
func TestLongLinesAndBinaries(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3<<20) + ` "token": "abcdefgh12345678"` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(long), 0o600); err != nil {
		t.Fatal(err)
	}
	prog := append([]byte("\x7fELF\x00\x00\n"), testKey(t)...)
	if err := os.WriteFile(filepath.Join(dir, "draconform-driver"), prog, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Scan(dir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasSuffix(got[0].File, "report.json") {
		t.Errorf("want the token at the end of the long line only, got %v", got)
	}
}

// testKey makes a private key at run time, PEM-encoded as a leaked one
// would be, so that no key material is kept in the repository.
func testKey(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "EC " + "PRIVATE KEY", Bytes: der}))
}
