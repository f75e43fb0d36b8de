package steps_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// A watch's time goes to its set-up until it has synced, then to waiting.
func TestAWatchSplitsItsTimeIntoSetUpAndWaiting(t *testing.T) {
	f := stepstest.New(t)
	f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
	ph := &steps.Phases{}
	ctx := steps.WithPhases(context.Background(), ph)
	sa := f.Env.Clients.Dyn.Resource(corev1.SchemeGroupVersion.WithResource("serviceaccounts")).Namespace(stepstest.Namespace)
	if err := steps.WaitExists(ctx, sa, "default", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := ph.Seconds()
	for _, part := range []string{steps.PhaseWatchSetup, steps.PhaseWaiting} {
		if _, ok := got[part]; !ok {
			t.Errorf("no %q in %v", part, got)
		}
	}
	if _, ok := got[steps.PhaseHolds]; ok {
		t.Errorf("a wait counted as a hold: %v", got)
	}
}
