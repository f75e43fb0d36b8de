package localcp

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/cluster"
)

func flagValues(args []string, name string) []string {
	var out []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestGateFlagOnEveryCommandLine(t *testing.T) {
	gates := cluster.Gates{"DRAConsumableCapacity": true, "DRAExtendedResource": false}
	want := []string{"DRAConsumableCapacity=true,DRAExtendedResource=false"}
	p := &pki{CACert: "ca.crt", SAKey: "sa.key", ServingCert: "s.crt", ServingKey: "s.key", TokenFile: "t.csv"}

	cmdlines := map[string]func(cluster.Gates) []string{
		"kube-apiserver": func(g cluster.Gates) []string {
			return apiserverArgs(apiserverParams{pki: p, etcdURL: "http://127.0.0.1:1", port: 6443, gates: g})
		},
		"kube-scheduler": func(g cluster.Gates) []string { return schedulerArgs("cfg.yaml", 10259, g) },
		"kube-controller-manager": func(g cluster.Gates) []string {
			return controllerManagerArgs("kubeconfig", p, 10257, g)
		},
	}
	for name, render := range cmdlines {
		t.Run(name, func(t *testing.T) {
			if got := flagValues(render(gates), "feature-gates"); !slices.Equal(got, want) {
				t.Errorf("--feature-gates = %q, want %q", got, want)
			}
			for _, empty := range []cluster.Gates{nil, {}} {
				if got := flagValues(render(empty), "feature-gates"); len(got) != 0 {
					t.Errorf("gates %v rendered --feature-gates=%q; want the flag absent", empty, got)
				}
			}
		})
	}
}

func TestAPIServerArgs(t *testing.T) {
	p := &pki{CACert: "ca.crt", SAKey: "sa.key", ServingCert: "s.crt", ServingKey: "s.key", TokenFile: "t.csv",
		EtcdCACert: "etcd-ca.crt", EtcdClientCert: "etcd-client.crt", EtcdClientKey: "etcd-client.key"}
	base := apiserverParams{pki: p, etcdURL: "https://127.0.0.1:2379", port: 6443}

	args := apiserverArgs(base)
	for flag, want := range map[string]string{
		"etcd-servers":             "https://127.0.0.1:2379",
		"etcd-cafile":              "etcd-ca.crt",
		"etcd-certfile":            "etcd-client.crt",
		"etcd-keyfile":             "etcd-client.key",
		"secure-port":              "6443",
		"bind-address":             "127.0.0.1",
		"advertise-address":        "127.0.0.1",
		"endpoint-reconciler-type": "none",
		"token-auth-file":          "t.csv",
		"client-ca-file":           "ca.crt",
		"service-account-key-file": "sa.key",
		"service-cluster-ip-range": "10.0.0.0/24",
		"runtime-config":           "resource.k8s.io/v1=true,resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true",
	} {
		if got := flagValues(args, flag); !slices.Equal(got, []string{want}) {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
	if got := flagValues(args, "storage-media-type"); len(got) != 0 {
		t.Errorf("--storage-media-type rendered as %q without being set", got)
	}

	withExtras := base
	withExtras.storageMediaType = "application/json"
	withExtras.extra = []string{"--v=4", "--runtime-config=api/all=true"}
	args = apiserverArgs(withExtras)
	if got := flagValues(args, "storage-media-type"); !slices.Equal(got, []string{"application/json"}) {
		t.Errorf("--storage-media-type = %q", got)
	}
	// Extra flags come last so that, for single-valued flags, they win.
	if tail := args[len(args)-2:]; !slices.Equal(tail, withExtras.extra) {
		t.Errorf("command line ends with %q, want the extra flags %q", tail, withExtras.extra)
	}
}

// A node's kubelet is held to its own node, as in a kubeadm cluster: the
// Node authorizer limits what it reads, NodeRestriction what it writes
// (its Node, Lease, pods, ResourceSlices), as the comment on the kubelet's
// kubeconfig (localnode/config.go) says.
func TestAPIServerHoldsKubeletsToTheirNode(t *testing.T) {
	p := &pki{CACert: "ca.crt", SAKey: "sa.key", ServingCert: "s.crt", ServingKey: "s.key", TokenFile: "t.csv"}
	args := apiserverArgs(apiserverParams{pki: p, etcdURL: "https://127.0.0.1:2379", port: 6443})
	plugins := flagValues(args, "enable-admission-plugins")
	if len(plugins) != 1 || !slices.Contains(strings.Split(plugins[0], ","), "NodeRestriction") {
		t.Errorf("--enable-admission-plugins = %q, want NodeRestriction among them", plugins)
	}
	for _, off := range flagValues(args, "disable-admission-plugins") {
		if slices.Contains(strings.Split(off, ","), "NodeRestriction") {
			t.Errorf("--disable-admission-plugins=%s", off)
		}
	}
	if modes := flagValues(args, "authorization-mode"); len(modes) != 1 || !slices.Contains(strings.Split(modes[0], ","), "Node") {
		t.Errorf("--authorization-mode = %q, want the Node authorizer", modes)
	}
}

func TestControllerManagerArgsKeepClaimControllersAndDropNodeLifecycle(t *testing.T) {
	args := controllerManagerArgs("kc", &pki{CACert: "ca.crt", SAKey: "sa.key"}, 10257, nil)
	if got := flagValues(args, "controllers"); !slices.Equal(got, []string{"*,-node-lifecycle-controller"}) {
		t.Errorf("--controllers = %q", got)
	}
	for flag, want := range map[string]string{
		"use-service-account-credentials":  "true",
		"leader-elect":                     "false",
		"service-account-private-key-file": "sa.key",
		"root-ca-file":                     "ca.crt",
		"kubeconfig":                       "kc",
		// Not throttled to Kubernetes' 20 QPS while it sets up one
		// service account per controller (5 s of every start).
		"kube-api-qps":   "100",
		"kube-api-burst": "200",
	} {
		if got := flagValues(args, flag); !slices.Equal(got, []string{want}) {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
}

func TestSchedulerConfigContentTypeOnlyWhenSet(t *testing.T) {
	for _, contentType := range []string{"", "application/json"} {
		out, err := renderSchedulerConfig("/x/kubeconfig", contentType)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("rendered config is not YAML: %v\n%s", err, out)
		}
		if doc["apiVersion"] != "kubescheduler.config.k8s.io/v1" || doc["kind"] != "KubeSchedulerConfiguration" {
			t.Errorf("wrong type meta:\n%s", out)
		}
		le, _ := doc["leaderElection"].(map[string]any)
		if le["leaderElect"] != true {
			t.Errorf("leaderElection.leaderElect = %v, want true", le["leaderElect"])
		}
		cc, _ := doc["clientConnection"].(map[string]any)
		if cc["kubeconfig"] != "/x/kubeconfig" {
			t.Errorf("clientConnection.kubeconfig = %v", cc["kubeconfig"])
		}
		got, present := cc["contentType"]
		switch {
		case contentType == "" && present:
			t.Errorf("contentType rendered as %v without being set:\n%s", got, out)
		case contentType != "" && got != contentType:
			t.Errorf("contentType = %v, want %s", got, contentType)
		}
	}
}
