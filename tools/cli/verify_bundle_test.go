package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify-bundle --allowed-signers asks for a signature: an unsigned bundle
// fails it, and without the flag the output says the bundle is
// self-attested.
func TestVerifyBundleAsksForItsSignature(t *testing.T) {
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed_signers")
	_ = os.WriteFile(allowed, []byte("vendor@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o644)
	bundleDir := filepath.Join(dir, "bundle")
	_ = os.Mkdir(bundleDir, 0o755)
	_ = os.WriteFile(filepath.Join(bundleDir, "SHA256SUMS"), nil, 0o644)
	code, _, errs := run(t, "verify-bundle", "--allowed-signers", allowed, bundleDir)
	if code != 1 || !strings.Contains(errs, "SHA256SUMS.sig is missing: the bundle is unsigned") {
		t.Errorf("code %d, stderr:\n%s", code, errs)
	}
}
