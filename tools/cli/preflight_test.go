package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster that cannot be used is one error, exit 2, before any case:
// not a failed spec per case with ginkgo's noise.
func TestUnusableClusterFailsOnceBeforeAnyCase(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	unreachable := filepath.Join(t.TempDir(), "kubeconfig")
	kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://" + closed + "\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
	if err := os.WriteFile(unreachable, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		kubeconfig, want string
	}{
		"missing":     {filepath.Join(t.TempDir(), "nonexistent"), "no such file or directory"},
		"empty":       {empty, "names no cluster to use"},
		"unreachable": {unreachable, "cannot reach the API server at https://" + closed},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := run(t, "run", "--provider", "kubeconfig", "--kubeconfig", tc.kubeconfig, "--out", out)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "the cluster cannot be used") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("want one line naming the problem (%q), got:\n%s", tc.want, stderr)
			}
			if strings.Contains(stdout, "Ran ") || strings.Contains(stdout, "[FAILED]") {
				t.Errorf("a case ran:\n%s", stdout)
			}
			if _, err := os.Stat(filepath.Join(out, "outcomes.json")); err == nil {
				t.Error("outcomes were written, so the run began")
			}
		})
	}
}
