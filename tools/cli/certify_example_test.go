package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster/localnode"
	"github.com/draconform/draconform/tools/report"
)

// TestCertifyExample runs the worked example of self-certification, `make
// certify-example` (tools/certify/example.sh), for real: the SIG's example
// DRA driver, a driver nobody here wrote, deployed by its own chart on the
// embedded node. On the prototype it certifies kep6406-gates-on, with the
// driver's pods' environment checked and a bundle verify-bundle accepts;
// on vanilla v1.37.2, declared capacity-on, the field is dropped and it
// must not. Either way nothing of the run stays on the machine.
func TestCertifyExample(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes, a kubelet node and the example driver")
	}
	if os.Geteuid() != 0 {
		t.Skip("a node needs root")
	}
	bin := buildCLI(t)
	for _, provider := range []string{"prototype", "local"} {
		if out, err := exec.Command(bin, "binaries", "--provider", provider).CombinedOutput(); err != nil {
			t.Fatalf("draconform binaries --provider %s: %v\n%s", provider, err, out)
		}
	}

	t.Run("prototype", func(t *testing.T) {
		out, output, err := certifyExample(t, bin, "--provider", "prototype")
		if err != nil {
			t.Fatalf("certify-example on the prototype: %v\n%s", err, output)
		}
		if !strings.Contains(output, "\nCONFORMANT kep6406-gates-on") {
			t.Errorf("no CONFORMANT verdict:\n%s", output)
		}
		if _, err := os.Stat(filepath.Join(out, "bundle", "SHA256SUMS")); err != nil {
			t.Errorf("no bundle: %v", err)
		}
		// The driver-profile cases ran on the example driver, and the one
		// that reads the container's environment passed.
		o := readOutcomes(t, filepath.Join(out, "run", "outcomes.json"))["driver-profile/pod-runs-with-its-share@capacity-on"]
		if o.State != "passed" {
			t.Errorf("driver-profile/pod-runs-with-its-share@capacity-on %q, want passed", o.State)
		}
		if !slices.ContainsFunc(o.Measurements, func(m string) bool { return strings.Contains(m, "GPU_DEVICE_0_MEMORY=40Gi") }) {
			t.Errorf("the outcome does not say what the container printed of its share: %q", o.Measurements)
		}
	})
	t.Run("vanilla", func(t *testing.T) {
		_, output, err := certifyExample(t, bin, "--provider", "local")
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("certify-example on v1.37.2 exited with %v, want non-zero:\n%s", err, output)
		}
		// v1.37.2 does not know the field: the probe finds it unknown.
		if !strings.Contains(output, "NOT CONFORMANT kep6406-gates-on") || !strings.Contains(output, "extendedResourceCapacityRequests must be kept") {
			t.Errorf("want NOT CONFORMANT naming the field the cluster does not keep:\n%s", output)
		}
	})
}

// certifyExample runs the script with upArgs and checks that the node it
// started left nothing on the machine.
func certifyExample(t *testing.T, bin string, upArgs ...string) (out, output string, err error) {
	t.Helper()
	out = t.TempDir()
	cmd := exec.Command("../certify/example.sh", upArgs...)
	cmd.Env = append(os.Environ(), "DRACONFORM="+bin, "OUT="+out)
	b, err := cmd.CombinedOutput()
	output = string(b)
	m := regexp.MustCompile(`state in (/var/lib/draconform/([0-9a-f]+)),`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("the run did not say where the node keeps its state:\n%s", output)
	}
	if left := append(nodeLeftovers(m[1], m[2]), localnode.OrphanLeftovers(m[2])...); len(left) > 0 {
		t.Errorf("the example's node left: %s", strings.Join(left, "; "))
	}
	return out, output, err
}

func readOutcomes(t *testing.T, path string) map[string]report.Outcome {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []report.Outcome
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m := map[string]report.Outcome{}
	for _, o := range list {
		m[o.ID] = o
	}
	return m
}
