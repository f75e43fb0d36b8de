package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/draconform/draconform/tools/internal/fsutil"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SigNamespace is the namespace of a bundle's SSH signature: a signature
// made for something else (a git commit, a file) with the same key does
// not pass for a bundle's.
const SigNamespace = "draconform-bundle"

// sshKeygen is the program that signs and verifies: OpenSSH's, so that a
// reviewer can check a bundle without draconform.
func sshKeygen() (string, error) {
	path, err := exec.LookPath("ssh-keygen")
	if err != nil {
		return "", fmt.Errorf("signatures need OpenSSH's ssh-keygen (8.1 or later) on PATH: %w", err)
	}
	return path, nil
}

// Sign signs dir's SHA256SUMS with the SSH key keyFile (a private key, or
// the public key of one an ssh-agent holds) and writes SHA256SUMS.sig.
// The sums name every other file with its sha256, so the signature covers
// them all.
func Sign(dir, keyFile string) error {
	// The bundle's folder, which Write checked, may be another now.
	if err := fsutil.OutputDir(dir); err != nil {
		return fmt.Errorf("signing the bundle: %w", err)
	}
	bin, err := sshKeygen()
	if err != nil {
		return fmt.Errorf("signing the bundle: %w", err)
	}
	sums, err := readFile(dir, SumsFile)
	if err != nil {
		return fmt.Errorf("signing the bundle: %w", err)
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(bin, "-Y", "sign", "-f", keyFile, "-n", SigNamespace)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(sums), &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("signing the bundle with %s: %w: %s", keyFile, err, strings.TrimSpace(stderr.String()))
	}
	if err := fsutil.WriteNew(filepath.Join(dir, SigFile), out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("signing the bundle: %w", err)
	}
	return nil
}

// Signed says whether dir carries a signature (not whether it is good).
func Signed(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, SigFile))
	return err == nil
}

// VerifySignature checks dir's SHA256SUMS.sig against allowedSigners (an
// OpenSSH allowed_signers file: "principal key" lines) as `ssh-keygen -Y
// verify` does, and returns the principal whose key made it. A bundle
// without a signature, or signed by a key the file does not list, is
// refused.
func VerifySignature(dir, allowedSigners string) (string, error) {
	bin, err := sshKeygen()
	if err != nil {
		return "", err
	}
	sig, err := readFile(dir, SigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is missing: the bundle is unsigned, and --allowed-signers asks for a signature", SigFile)
	}
	if err != nil {
		return "", err
	}
	sums, err := readFile(dir, SumsFile)
	if err != nil {
		return "", err
	}
	// ssh-keygen reads the signature from a file; this copy is the one
	// checked, whatever happens to the bundle's meanwhile.
	tmp, err := os.MkdirTemp("", "draconform-sig-")
	if err != nil {
		return "", fmt.Errorf("checking the signature: %w", err)
	}
	defer os.RemoveAll(tmp)
	sigPath := filepath.Join(tmp, SigFile)
	if err := os.WriteFile(sigPath, sig, 0o600); err != nil {
		return "", fmt.Errorf("checking the signature: %w", err)
	}
	out, err := exec.Command(bin, "-Y", "find-principals", "-s", sigPath, "-f", allowedSigners).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s was not made by a key %s lists (ssh-keygen -Y find-principals: %s)", SigFile, allowedSigners, strings.TrimSpace(string(out)))
	}
	principal, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-Y", "verify", "-f", allowedSigners, "-I", principal, "-n", SigNamespace, "-s", sigPath)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(sums), &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s does not sign this %s (ssh-keygen -Y verify as %s, namespace %s: %s): the bundle was changed after it was signed", SigFile, SumsFile, principal, SigNamespace, strings.TrimSpace(stderr.String()))
	}
	return principal, nil
}
