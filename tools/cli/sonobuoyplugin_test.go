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

// The plugin never runs a moving tag from whatever a node holds: a test
// build is no release, so without --image it is refused and pointed at a
// digest; dev is refused; a tag is pulled each time; a digest is run as
// the node holds it (kind, where the image is loaded).
func TestSonobuoyPluginPinsItsImage(t *testing.T) {
	digest := "draconform.dev/draconform@sha256:" + strings.Repeat("5e", 32)
	for _, tt := range []struct {
		args            []string
		code            int
		policy, refusal string
	}{
		{nil, 2, "", "--image draconform.dev/draconform@sha256:"},
		{[]string{"--image", "draconform.dev/draconform:dev"}, 2, "", "the tag dev moves"},
		{[]string{"--image", "registry.example.com/draconform:v0.4.0"}, 0, "imagePullPolicy: Always", ""},
		{[]string{"--image", digest}, 0, "imagePullPolicy: IfNotPresent", ""},
	} {
		code, def, stderr := run(t, append([]string{"sonobuoy-plugin"}, tt.args...)...)
		if code != tt.code || !strings.Contains(def, tt.policy) || !strings.Contains(stderr, tt.refusal) {
			t.Errorf("sonobuoy-plugin %v: exit %d, want %d with %q%q:\n%s%s", tt.args, code, tt.code, tt.policy, tt.refusal, def, stderr)
		}
		if strings.Contains(def, ":dev") && strings.Contains(def, "IfNotPresent") {
			t.Errorf("sonobuoy-plugin %v runs a dev tag from whatever the node holds:\n%s", tt.args, def)
		}
	}
}
