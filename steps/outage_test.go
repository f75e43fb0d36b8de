package steps_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/lang/spec"
)

// outager records the outages asked of it, and fails them with err.
type outager struct {
	restarter
	outages []string
	err     error
}

func (o *outager) Outage(_ context.Context, c cluster.Component, down time.Duration) error {
	o.outages = append(o.outages, fmt.Sprintf("%s %s", c, down))
	return o.err
}

// An outage asks the provider for exactly that component and time, says
// how long the component was away, and names the provider that cannot.
func TestOutage(t *testing.T) {
	step := &steps.Outage{Spec: &spec.Outage{Component: "kube-apiserver", For: spec.Duration(20 * time.Second)}}

	f := stepstest.New(t)
	fake := &outager{restarter: restarter{gates: cluster.GateState{}}}
	f.Env.Cluster = fake
	if err := step.Run(context.Background(), f.Env); err != nil {
		t.Fatal(err)
	}
	if len(fake.outages) != 1 || fake.outages[0] != "kube-apiserver 20s" {
		t.Errorf("outages %q, want one of kube-apiserver for 20s", fake.outages)
	}
	if m := f.Env.Measurements(); len(m) != 1 || !strings.Contains(m[0], "served again") {
		t.Errorf("measurements %q, want how long it was away", m)
	}

	fake.err = errors.New("the kubelet did not stop kube-apiserver")
	if err := step.Run(context.Background(), f.Env); err == nil || !strings.Contains(err.Error(), "the kubelet did not stop") {
		t.Errorf("err %v, want the provider's", err)
	}

	f = stepstest.New(t)
	f.Env.Cluster = &restarter{gates: cluster.GateState{}}
	if err := step.Run(context.Background(), f.Env); !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "cannot take components away") {
		t.Errorf("err %v, want unsupported", err)
	}
}
