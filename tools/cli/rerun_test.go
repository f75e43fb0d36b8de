package cli

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/usecase"
)

// The rerun command a failure prints gives the case its implementation
// again: binaries from elsewhere by their flags, a kubeconfig cluster by
// its kubeconfig, the others by --provider alone.
func TestRerunFlagsNameTheBinariesAndTheCluster(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		target string
		want   string
	}{
		{[]string{"--provider", "local", "--bin-dir", "/src/k8s/_output/bin"}, "local-bin", "--provider local --bin-dir /src/k8s/_output/bin"},
		{[]string{"--provider", "local", "--bin", "kube-scheduler=/x y/s", "--bin-encoding", "json"}, "local-bin", "--provider local --bin 'kube-scheduler=/x y/s' --bin-encoding json"},
		{[]string{"--provider", "kubeconfig", "--kubeconfig", "/k/config", "--context", "c1", "--allow-fake-nodes"}, "kubeconfig", "--provider kubeconfig --kubeconfig /k/config --context c1 --allow-fake-nodes"},
		{[]string{"--provider", "prototype"}, "prototype", ""},
	} {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		var f usecase.Providers
		registerProviders(fs, &f)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := f.RerunFlags()[tc.target]; got != tc.want {
			t.Errorf("%v: rerun flags of %s are %q, want %q", tc.args, tc.target, got, tc.want)
		}
	}
}
