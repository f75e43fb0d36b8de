package kind

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/draconform/draconform/tools/cluster"
)

// Every command line the provider runs, in one table: these are what a
// machine with Docker will execute, so a typo here is a failed CI run.
func TestCommandLines(t *testing.T) {
	write, rename := writeManifestArgv(cluster.Scheduler)
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"docker info", append([]string{"docker"}, dockerInfoArgs...), "docker info --format {{.ServerVersion}}"},
		{"stage manifest", write, "cp /dev/stdin /etc/kubernetes/draconform-kube-scheduler.yaml.new"},
		{"install manifest", rename, "mv -f /etc/kubernetes/draconform-kube-scheduler.yaml.new /etc/kubernetes/manifests/kube-scheduler.yaml"},
		{"list containers", crictlPsArgv(cluster.APIServer), "crictl ps -a --name ^kube-apiserver$ -o json"},
		{"container log", crictlLogsArgv("abc"), "crictl logs --tail 40 abc"},
		{"gates of a binary", crictlHelpArgv("abc", cluster.ControllerManager), "crictl exec abc /usr/local/bin/kube-controller-manager --help"},
		{"scheduler metrics", schedulerMetricsArgv(), "kubectl --kubeconfig /etc/kubernetes/admin.conf --server https://127.0.0.1:10259 --insecure-skip-tls-verify get --raw /metrics"},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.got, " "); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestParseCrictlPs(t *testing.T) {
	// As crictl v1.36 prints it: createdAt is a string.
	out := `{
  "containers": [
    {"id": "old", "podSandboxId": "p1", "metadata": {"name": "kube-apiserver", "attempt": 0},
     "state": "CONTAINER_EXITED", "createdAt": "1767225600000000000", "labels": {}, "annotations": {}},
    {"id": "new", "podSandboxId": "p2", "metadata": {"name": "kube-apiserver", "attempt": 0},
     "state": "CONTAINER_RUNNING", "createdAt": "1767225660000000000", "labels": {}, "annotations": {}},
    {"id": "num", "metadata": {"name": "kube-apiserver"}, "state": "CONTAINER_CREATED", "createdAt": 5}
  ]
}`
	got, err := parseCrictlPs([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []criContainer{
		{ID: "new", Name: "kube-apiserver", State: "CONTAINER_RUNNING", CreatedAt: 1767225660000000000},
		{ID: "old", Name: "kube-apiserver", State: "CONTAINER_EXITED", CreatedAt: 1767225600000000000},
		{ID: "num", Name: "kube-apiserver", State: "CONTAINER_CREATED", CreatedAt: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	fresh := newContainers(got, map[string]bool{"old": true})
	if len(fresh) != 2 || fresh[0].ID != "new" || !anyRunning(fresh) {
		t.Errorf("new containers %+v", fresh)
	}
	if _, err := parseCrictlPs([]byte(`{"containers":[{"id":"x","createdAt":"soon"}]}`)); err == nil {
		t.Error("a bad createdAt parsed")
	}
	if _, err := parseCrictlPs([]byte("FATA[0000] connect: connection refused")); err == nil {
		t.Error("crictl's error text parsed as JSON")
	}
}

func TestGatesInHelpAndUnknownGates(t *testing.T) {
	// An excerpt of kube-apiserver v1.37 --help.
	help := `      --feature-gates colonSeparatedMultimapStringString
                A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:
                kube:APIResponseCompression=true|false (BETA - default=true)
                kube:AllAlpha=true|false (ALPHA - default=false)
                kube:DRAConsumableCapacity=true|false (BETA - default=true)
                kube:DRAPartitionableDevices=true|false (BETA - default=true)
`
	known := cluster.GatesInHelp(help)
	for _, g := range []string{"DRAConsumableCapacity", "DRAPartitionableDevices", "AllAlpha"} {
		if !known[g] {
			t.Errorf("%s not found in help", g)
		}
	}
	got := cluster.UnknownGates(cluster.APIServer, known, cluster.Gates{"DRAConsumableCapacity": false, "DRAExtendedResourceCapacity": true, "Zed": true})
	want := []string{"kube-apiserver has no alpha or beta feature gate DRAExtendedResourceCapacity", "kube-apiserver has no alpha or beta feature gate Zed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !unrecognizedGate(`E0101 run.go:72] "command failed" err="unrecognized feature gate: DRAExtendedResourceCapacity"`) {
		t.Error("the component's unknown-gate error is not recognised")
	}
	if unrecognizedGate("DRAExtendedResourceCapacity is enabled, but depends on features that are disabled") {
		t.Error("a gate dependency taken for an unknown gate")
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines("a\n\nb\nc\nd\n", 3); got != "b / c / d" {
		t.Errorf("%q", got)
	}
	if got := lastLines("  \n", 3); got != "" {
		t.Errorf("%q", got)
	}
}

func TestClusterName(t *testing.T) {
	if got := clusterName("draconform", "defaults", 0); got != "draconform" {
		t.Error(got)
	}
	if got := clusterName("draconform", "capacity-on-consumable-off", 1); got != "draconform-capacity-on-consumable-off" || len(got) > 50 {
		t.Errorf("%s (kind warns above 50 characters)", got)
	}
}
