package steps_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
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

// refusingRestarter fails every restart with err, as a provider does whose
// component did not come up (its previous gates put back).
type refusingRestarter struct {
	restarter
	err error
}

func (r *refusingRestarter) Restart(context.Context, cluster.Component, cluster.Gates) error {
	return r.err
}

// A restart the component's binary refuses (a gate locked, removed, or
// needed by an enabled one), or that the provider said beforehand it cannot
// offer, makes the case not apply, with the binary's words; any other failed
// restart stays a failure. Either way nothing is left to restore.
func TestRestartTheBinaryRefusesDoesNotApply(t *testing.T) {
	dependency := "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]"
	for _, tc := range []struct {
		name       string
		err        error
		notOffered bool
		why        string
	}{
		{"the scheduler refused to start", fmt.Errorf("local: restarting kube-scheduler in cell defaults with gates \"DRAConsumableCapacity=false\": kube-scheduler exited: exit status 1; log tail:\nE1205 run.go:72] \"command failed\" err=%q", dependency),
			true, dependency},
		{"a locked gate", errors.New(`err="cannot set feature gate DRAExtendedResource to false, feature is locked to true"`), true, "feature is locked to true"},
		{"the provider knew beforehand", fmt.Errorf("kube-scheduler has no alpha or beta feature gate DRAConsumableCapacity: %w", cluster.ErrUnsupported), true, "no alpha or beta feature gate DRAConsumableCapacity"},
		{"not ready in time", errors.New("local: restarting kube-scheduler: not healthy within 60s"), false, ""},
		{"crashed", errors.New("kube-scheduler exited: panic: runtime error: index out of range"), false, ""},
	} {
		f := stepstest.New(t)
		fake := &refusingRestarter{restarter: restarter{gates: cluster.GateState{}}, err: tc.err}
		f.Env.Cluster = fake
		f.Env.BaseGates = cluster.GateState{}
		err := (&steps.Restart{Spec: &spec.Restart{Component: "kube-scheduler", Gates: map[string]bool{"DRAConsumableCapacity": false}}}).Run(context.Background(), f.Env)
		if err == nil {
			t.Fatalf("%s: a failed restart passed", tc.name)
		}
		if got := errors.Is(err, cluster.ErrUnsupported); got != tc.notOffered {
			t.Errorf("%s: does not apply = %v, want %v: %v", tc.name, got, tc.notOffered, err)
		}
		if tc.notOffered && !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: %q lacks the binary's reason %q", tc.name, err, tc.why)
		}
		if !tc.notOffered && !strings.Contains(err.Error(), tc.err.Error()) {
			t.Errorf("%s: the failure %q lost the restart's error", tc.name, err)
		}
		if err := f.Env.RunCleanup(context.Background()); err != nil {
			t.Errorf("%s: cleanup: %v", tc.name, err)
		}
	}
}

// binaryRestarter is a restarter that can also swap binaries.
type binaryRestarter struct {
	restarter
	released map[cluster.Component]bool
}

func (r *binaryRestarter) RestartBinary(ctx context.Context, c cluster.Component, g cluster.Gates, released bool) error {
	r.released[c] = released
	r.restarts = append(r.restarts, fmt.Sprintf("%s released=%v %s", c, released, g.Flag()))
	r.gates[c] = g
	return nil
}

func (r *binaryRestarter) RunsReleased(c cluster.Component) bool { return r.released[c] }

// A binary downgrade is undone after the case: the component runs its
// cell's binary and gates again, with one restart, or none where the case
// put both back itself. A provider that cannot swap binaries makes the case
// not apply.
func TestRestartBinaryComesBack(t *testing.T) {
	on := map[string]bool{"DRAExtendedResourceCapacity": true}
	down := &spec.Restart{Component: "kube-apiserver", Binary: spec.BinaryReleased, Gates: map[string]bool{}}
	up := &spec.Restart{Component: "kube-apiserver", Binary: spec.BinaryImplementation, Gates: on}
	for _, tc := range []struct {
		name  string
		steps []*spec.Restart
		want  []string
	}{
		{name: "down, left down", steps: []*spec.Restart{down},
			want: []string{"kube-apiserver released=true ", "kube-apiserver released=false DRAExtendedResourceCapacity=true"}},
		{name: "down and up again", steps: []*spec.Restart{down, up},
			want: []string{"kube-apiserver released=true ", "kube-apiserver released=false DRAExtendedResourceCapacity=true"}},
	} {
		f := stepstest.New(t)
		fake := &binaryRestarter{restarter: restarter{gates: cluster.GateState{cluster.APIServer: on}}, released: map[cluster.Component]bool{}}
		f.Env.Cluster = fake
		f.Env.BaseGates = cluster.GateState{cluster.APIServer: on}
		for _, st := range tc.steps {
			if err := (&steps.Restart{Spec: st}).Run(context.Background(), f.Env); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Env.RunCleanup(context.Background()); err != nil {
			t.Fatal(err)
		}
		if strings.Join(fake.restarts, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: restarts %q, want %q", tc.name, fake.restarts, tc.want)
		}
		if fake.released[cluster.APIServer] {
			t.Errorf("%s: kube-apiserver left on the released binary", tc.name)
		}
	}
	f := stepstest.New(t)
	f.Env.Cluster = &restarter{gates: cluster.GateState{}}
	err := (&steps.Restart{Spec: down}).Run(context.Background(), f.Env)
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("a provider that cannot swap binaries: %v, want a restart that does not apply", err)
	}
}
