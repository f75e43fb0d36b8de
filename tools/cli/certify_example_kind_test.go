package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCertifyExampleKind runs `make certify-example-kind`
// (tools/certify/example-kind.sh) for real where a Docker engine answers: a
// vendor's day on plain kind, with the example driver's unmodified chart
// installed by helm. With the node image that has KEP-6406 it certifies
// kep6406-gates-on, with a bundle verify-bundle accepts; with the release's
// it must not, naming the field. Either way no container or network of its
// cluster is left.
func TestCertifyExampleKind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds node images and starts kind clusters")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skip("no Docker engine answers (docker info): make docker-engine starts draconform's, or run make certify-example-kind, which starts one")
	}
	bin := buildCLI(t)
	t.Run("kep", func(t *testing.T) {
		out, output, err := certifyExampleKind(t, bin, "kep")
		if err != nil {
			t.Fatalf("certify-example-kind: %v\n%s", err, output)
		}
		if !strings.Contains(output, "\nCONFORMANT kep6406-gates-on") {
			t.Errorf("no CONFORMANT verdict:\n%s", output)
		}
		if _, err := os.Stat(filepath.Join(out, "bundle", "SHA256SUMS")); err != nil {
			t.Errorf("no bundle: %v", err)
		}
		for _, id := range []string{"driver-profile/pod-runs-with-its-share@capacity-on", "driver-profile/two-shares-on-one-device@capacity-on",
			"driver-profile/more-than-a-device-stays-pending@capacity-on"} {
			if o := readOutcomes(t, filepath.Join(out, "run", "outcomes.json"))[id]; o.State != "passed" {
				t.Errorf("%s %q on kind, want passed", id, o.State)
			}
		}
	})
	t.Run("vanilla", func(t *testing.T) {
		_, output, err := certifyExampleKind(t, bin, "vanilla")
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("certify-example-kind IMAGE=vanilla exited with %v, want non-zero:\n%s", err, output)
		}
		if !strings.Contains(output, "NOT CONFORMANT kep6406-gates-on") || !strings.Contains(output, "extendedResourceCapacityRequests must be kept") {
			t.Errorf("want NOT CONFORMANT naming the field the cluster does not keep:\n%s", output)
		}
	})
}

// certifyExampleKind runs the script on a cluster of its own name and
// checks that nothing of the cluster is left.
func certifyExampleKind(t *testing.T, bin, image string) (out, output string, err error) {
	t.Helper()
	out = t.TempDir()
	name := fmt.Sprintf("dc-example-%d", os.Getpid())
	cmd := exec.Command("../certify/example-kind.sh")
	cmd.Dir = "."
	cmd.Env = append(os.Environ(), "DRACONFORM="+bin, "OUT="+out, "IMAGE="+image, "CLUSTER="+name)
	b, err := cmd.CombinedOutput()
	output = string(b)
	left, lerr := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster="+name, "--format", "{{.Names}}").Output()
	if lerr != nil || strings.TrimSpace(string(left)) != "" {
		t.Errorf("the cluster's containers are left (%v): %s", lerr, left)
	}
	return out, output, err
}
