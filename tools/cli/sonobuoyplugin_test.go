package cli

import (
	"strings"
	"testing"
)

// The Sonobuoy plugin runs as its own service account, and --rbac prints
// that account with draconform rbac's manifest for it: the role, the log
// role and the policy that confines it, bound to that account alone.
func TestSonobuoyPluginShipsItsAccount(t *testing.T) {
	code, def, stderr := run(t, "sonobuoy-plugin", "--image", "img:1", "--service-account", "dc-plugin")
	if code != 0 || !strings.Contains(def, "serviceAccountName: dc-plugin") {
		t.Errorf("exit %d, the definition does not run as dc-plugin:\n%s%s", code, def, stderr)
	}
	code, manifest, stderr := run(t, "sonobuoy-plugin", "--rbac", "--namespace", "sonobuoy", "--service-account", "dc-plugin")
	if code != 0 {
		t.Fatalf("--rbac: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"kind: ServiceAccount\nmetadata:\n  name: dc-plugin\n  namespace: sonobuoy", "kind: ClusterRoleBinding", "kind: ValidatingAdmissionPolicyBinding",
		"request.userInfo.username == 'system:serviceaccount:sonobuoy:dc-plugin'", "name: draconform-runner-logs", "(draconform policy version"} {
		if !strings.Contains(manifest, want) {
			t.Errorf("--rbac does not hold %q:\n%s", want, manifest)
		}
	}
	if strings.Contains(manifest, "sonobuoy-serviceaccount") {
		t.Error("--rbac grants Sonobuoy's own account")
	}
	if code, _, stderr := run(t, "sonobuoy-plugin", "--rbac", "--namespace", "kube-system"); code != 2 || !strings.Contains(stderr, "kube-system") {
		t.Errorf("--rbac for kube-system: exit %d: %s", code, stderr)
	}
}
