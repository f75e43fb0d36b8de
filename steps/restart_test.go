package steps_test

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/spec"
)

// restarter records restarts and reports the gates they left.
type restarter struct {
	gates    cluster.GateState
	restarts []string
}

func (r *restarter) Name() string             { return "fake/cell" }
func (r *restarter) RESTConfig() *rest.Config { return &rest.Config{} }
func (r *restarter) Gates() cluster.GateState { return r.gates.Clone() }
func (r *restarter) TailLog(context.Context, cluster.Component, int) (string, error) {
	return "", cluster.ErrNoLog
}
func (r *restarter) Restart(_ context.Context, c cluster.Component, g cluster.Gates) error {
	r.restarts = append(r.restarts, string(c)+" "+g.Flag())
	r.gates[c] = g
	return nil
}

// The cell's gates come back after the case, with one restart at most per
// component, and none where the case's last restart already gave them back.
func TestRestartRestoresTheCellGatesOnce(t *testing.T) {
	off := map[string]bool{"DRAExtendedResourceCapacity": false}
	on := map[string]bool{"DRAExtendedResourceCapacity": true}
	for _, tc := range []struct {
		name  string
		steps []map[string]bool
		want  []string
	}{
		{name: "off, left off", steps: []map[string]bool{off},
			want: []string{"kube-apiserver DRAExtendedResourceCapacity=false", "kube-apiserver DRAExtendedResourceCapacity=true"}},
		{name: "off then on again", steps: []map[string]bool{off, on},
			want: []string{"kube-apiserver DRAExtendedResourceCapacity=false", "kube-apiserver DRAExtendedResourceCapacity=true"}},
	} {
		f := stepstest.New(t)
		fake := &restarter{gates: cluster.GateState{cluster.APIServer: on}}
		f.Env.Cluster = fake
		f.Env.BaseGates = cluster.GateState{cluster.APIServer: on}
		for _, g := range tc.steps {
			if err := (&steps.Restart{Spec: &spec.Restart{Component: "kube-apiserver", Gates: g}}).Run(context.Background(), f.Env); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Env.RunCleanup(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(fake.restarts) != len(tc.want) {
			t.Fatalf("%s: restarts %q, want %q", tc.name, fake.restarts, tc.want)
		}
		for i := range tc.want {
			if fake.restarts[i] != tc.want[i] {
				t.Errorf("%s: restart %d is %q, want %q", tc.name, i, fake.restarts[i], tc.want[i])
			}
		}
	}
}
