package runner

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// A case's namespace and clean-up are timed as parts of their own, their
// inner watches not counted again, and the entry counts the case's pods.
func TestCasePhasesTimeTheNamespaceAndCleanupAndCountThePods(t *testing.T) {
	f := stepstest.New(t)
	f.Env.Cluster = nsCluster{}
	f.AddYAML("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: " + stepstest.Namespace + "}\n")
	ph := &steps.Phases{}
	ctx := steps.WithPhases(context.Background(), ph)
	if err := timedPhase(ctx, PhaseNamespace, func(ctx context.Context) error { return createNamespace(ctx, f.Env, false) }); err != nil {
		t.Fatal(err)
	}
	f.SeedYAML("p", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	f.SeedYAML("c", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n")
	if err := timedPhase(ctx, PhaseCleanup, f.Env.RunCleanup); err != nil {
		t.Fatal(err)
	}
	r := newCaseResult(false)
	recordPhases(r, f.Env, ph)
	if len(r.entries) != 1 || r.entries[0].name != EntryPhases || !r.entries[0].never {
		t.Fatalf("entries %+v, want one hidden %q", r.entries, EntryPhases)
	}
	var cp CasePhases
	if err := json.Unmarshal([]byte(r.entries[0].value.(string)), &cp); err != nil {
		t.Fatal(err)
	}
	if cp.Pods != 1 {
		t.Errorf("pods %d, want 1 (the claim is no pod)", cp.Pods)
	}
	if _, ok := cp.Seconds[PhaseNamespace]; !ok {
		t.Errorf("no namespace part in %v", cp.Seconds)
	}
	if _, ok := cp.Seconds[PhaseCleanup]; !ok {
		t.Errorf("no clean-up part in %v", cp.Seconds)
	}
	// The wait for the ServiceAccount is the namespace's, not a watch of
	// the case's steps.
	if _, ok := cp.Seconds[PhaseWatchSetup]; ok {
		t.Errorf("the namespace's watch counted again: %v", cp.Seconds)
	}
}
