package bundle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A bundle comes from someone else: verifying it must open only the
// bundle's own files, as regular files of bounded size, whatever its
// SHA256SUMS names.
func TestATamperedBundleIsRefusedUnread(t *testing.T) {
	appendSum := func(dir, line string) {
		f, err := os.OpenFile(filepath.Join(dir, SumsFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	zero := strings.Repeat("0", 64)
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
		says string
	}{
		// /dev/zero read whole would never end: the name alone refuses it.
		{"a traversal name", func(_ *testing.T, d string) { appendSum(d, zero+"  ../../../../../../dev/zero") }, `lists "../../../../../../dev/zero", which is not a file of a bundle`},
		{"an absolute name", func(_ *testing.T, d string) { appendSum(d, zero+"  /etc/hostname") }, `lists "/etc/hostname", which is not a file of a bundle`},
		{"a subfolder's file", func(_ *testing.T, d string) { appendSum(d, zero+"  sub/x.json") }, `lists "sub/x.json", which is not a file of a bundle`},
		{"a symlink in a known name", func(t *testing.T, d string) {
			outside := filepath.Join(t.TempDir(), "outcomes.json")
			data, _ := os.ReadFile(filepath.Join(d, OutcomesFile))
			_ = os.WriteFile(outside, data, 0o644)
			_ = os.Remove(filepath.Join(d, OutcomesFile))
			if err := os.Symlink(outside, filepath.Join(d, OutcomesFile)); err != nil {
				t.Fatal(err)
			}
		}, "outcomes.json is a symbolic link"},
		{"a fifo in a known name", func(t *testing.T, d string) {
			_ = os.Remove(filepath.Join(d, FactsFile))
			if err := exec.Command("mkfifo", filepath.Join(d, FactsFile)).Run(); err != nil {
				t.Skip("no mkfifo:", err)
			}
		}, "cluster-facts.json is not a regular file"},
		{"a file over the cap", func(t *testing.T, d string) {
			// Sparse: the size is what is refused, nothing is read.
			if err := os.Truncate(filepath.Join(d, LogFile), maxFileSize+1); err != nil {
				t.Fatal(err)
			}
		}, "e2e.log is 268435457 bytes, over the cap"},
		{"a subfolder", func(t *testing.T, d string) { _ = os.Mkdir(filepath.Join(d, "sub"), 0o755) }, "sub is not part of a bundle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeBundle(t)
			tt.edit(t, dir)
			err := Verify(dir, "abc", judge)
			if err == nil {
				t.Fatal("the tampered bundle verified")
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("problems do not say %q:\n%v", tt.says, err)
			}
		})
	}
}

// forge rewrites a bundle's failed case as passed in every file that
// records it and writes fresh sums: the edit an unsigned bundle cannot
// show.
func forge(t *testing.T, dir string) {
	t.Helper()
	for name, edit := range map[string][2]string{
		OutcomesFile: {`"failed"`, `"passed"`},
		JUnitFile:    {"status=\"failed\" time=\"0.000\">\n      <failure message=\"x\" type=\"failed\"><![CDATA[x]]></failure>", `status="passed" time="0.000">`},
		VerdictsFile: {`"not conformant"`, `"conformant"`},
	} {
		path := filepath.Join(dir, name)
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), edit[0]) {
			t.Fatalf("%s has no %s to forge:\n%s", name, edit[0], data)
		}
		_ = os.WriteFile(path, []byte(strings.Replace(string(data), edit[0], edit[1], 1)), 0o644)
	}
	if err := writeSums(dir); err != nil {
		t.Fatal(err)
	}
}

// keyPair makes an SSH key and an allowed_signers file naming it.
func keyPair(t *testing.T, principal string) (key, allowed string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen:", err)
	}
	dir := t.TempDir()
	key = filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed = filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(allowed, []byte(principal+` namespaces="`+SigNamespace+`" `+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, allowed
}

// The sums alone are self-attested: a forgery consistent across files
// verifies. Its signature does not.
func TestASignedBundleShowsAForgery(t *testing.T) {
	key, allowed := keyPair(t, "vendor@example.com")
	_, otherAllowed := keyPair(t, "someone@example.com")

	dir := writeBundle(t)
	if Signed(dir) {
		t.Fatal("a bundle is signed before Sign")
	}
	if err := Sign(dir, key); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, "abc", judge); err != nil {
		t.Fatalf("a signed bundle does not verify:\n%v", err)
	}
	who, err := VerifySignature(dir, allowed)
	if err != nil || who != "vendor@example.com" {
		t.Fatalf("a good signature: %q, %v", who, err)
	}
	if _, err := VerifySignature(dir, otherAllowed); err == nil || !strings.Contains(err.Error(), "was not made by a key") {
		t.Errorf("a signature by a key the reviewer does not trust: %v", err)
	}

	forge(t, dir)
	if err := Verify(dir, "abc", judge); err != nil {
		t.Fatalf("the forgery should pass the unsigned checks (that is what self-attested means); it did not:\n%v", err)
	}
	if _, err := VerifySignature(dir, allowed); err == nil || !strings.Contains(err.Error(), "the bundle was changed after it was signed") {
		t.Errorf("a forgery with fresh sums under the old signature: %v", err)
	}

	unsigned := writeBundle(t)
	if _, err := VerifySignature(unsigned, allowed); err == nil || !strings.Contains(err.Error(), "the bundle is unsigned") {
		t.Errorf("an unsigned bundle checked for a signature: %v", err)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, ReadmeFile))
	if !strings.Contains(string(readme), "self-attested") {
		t.Errorf("README.md does not say an unsigned bundle is self-attested:\n%s", readme)
	}
}
