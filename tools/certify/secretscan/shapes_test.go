package secretscan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The embedded control plane's admin token, where it could leak (its
// static token file copied, a kubectl line logged), and credentials in a
// file with NUL bytes: each must be found. A program is passed over, and
// the sha256 sums a run writes are no token.
func TestFindsTheAdminTokenAndReadsBinaryFiles(t *testing.T) {
	token := strings.Repeat("0123456789abcdef", 4)
	key := testKey(t)
	for name, tt := range map[string]struct{ text, kind string }{
		"token file":    {token + `,draconform-admin,draconform-admin,"system:masters"` + "\n", "a static token file's line (the embedded control plane's admin token)"},
		"kubectl line":  {"running kubectl --token=" + token + " get pods\n", "a token on a command line"},
		"NUL bytes":     {"\x00\x01\x02journal\n    token: abcdef0123456789\n", "inline kubeconfig token"},
		"UTF-16 header": {"\xff\xfe\x00\x00" + key, "a PEM private key"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(tt.text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Scan(dir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Kind != tt.kind {
			t.Errorf("%s: found %v, want %s", name, got, tt.kind)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"draconform": "\x7fELF\x02\x01\x01\x00" + key,
		"image.tar":  strings.Repeat("\x00", 257) + "ustar\x00" + key,
		"SHA256SUMS": token + "  outcomes.json\n",
		"version":    `{"suiteDigest": "` + token + `"}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Scan(dir, time.Time{}); err != nil || len(got) != 0 {
		t.Errorf("a program, an archive and sums: %v, %v", got, err)
	}
}
