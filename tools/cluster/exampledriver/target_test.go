package exampledriver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Locate reads the kubeconfig and then looks for the node whose kubelet
// talks to its server: no kubelet of this machine talks to port 1.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Locate(filepath.Join(dir, "missing"), ""); err == nil || !strings.Contains(err.Error(), "reading kubeconfig") {
		t.Errorf("a missing kubeconfig: %v", err)
	}
	path := filepath.Join(dir, "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Locate(path, "")
	if err == nil || !strings.Contains(err.Error(), "https://127.0.0.1:1") {
		t.Errorf("a server no node talks to: %v", err)
	}
}
