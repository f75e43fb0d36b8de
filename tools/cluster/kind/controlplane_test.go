package kind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/draconform/draconform/tools/cluster"
)

var consumableOff = cluster.GateState{
	cluster.APIServer:         {"DRAConsumableCapacity": false},
	cluster.Scheduler:         {"DRAConsumableCapacity": false},
	cluster.ControllerManager: {"DRAConsumableCapacity": false},
}

func TestApplySetsEveryComponentThroughItsManifest(t *testing.T) {
	kc, n := simCluster(t)
	if err := kc.apply(context.Background(), consumableOff); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(consumableOff, n.manifestGates(t)); diff != "" {
		t.Errorf("manifests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(consumableOff, kc.currentGates()); diff != "" {
		t.Errorf("reported gates (-want +got):\n%s", diff)
	}
	// The scheduler's manifest already had these gates: it is not touched.
	if got := []int{n.wrote(cluster.APIServer), n.wrote(cluster.Scheduler), n.wrote(cluster.ControllerManager)}; !cmp.Equal(got, []int{1, 0, 1}) {
		t.Errorf("manifest writes (apiserver, scheduler, controller-manager) = %v, want [1 0 1]", got)
	}
	// And back to the defaults: flags removed.
	if err := kc.apply(context.Background(), cluster.GateState{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cluster.GateState{}, n.manifestGates(t)); diff != "" {
		t.Errorf("manifests after going back to defaults (-want +got):\n%s", diff)
	}
}

// A gate the binaries lack is a skip, known before anything changes.
func TestApplyUnknownGateIsUnsupportedAndChangesNothing(t *testing.T) {
	kc, n := simCluster(t)
	before := n.manifestGates(t)
	err := kc.apply(context.Background(), cluster.GateState{cluster.APIServer: {"DRAExtendedResourceCapacity": true}})
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("error %v, want ErrUnsupported", err)
	}
	if !strings.Contains(err.Error(), "kube-apiserver has no alpha or beta feature gate DRAExtendedResourceCapacity") {
		t.Errorf("error does not say which gate: %v", err)
	}
	for _, c := range cluster.Components {
		if n.wrote(c) != 0 {
			t.Errorf("%s manifest written", c)
		}
	}
	if diff := cmp.Diff(before, n.manifestGates(t)); diff != "" {
		t.Errorf("manifests changed (-before +after):\n%s", diff)
	}
}

// With KEP binaries, the capacity-on-consumable-off cell is refused by the
// API server itself: the error must carry its words (the cell's
// startRefusal matches them), and the control plane must come back as it
// was for the next cell.
func TestApplyRefusalCarriesTheComponentsLogAndRestores(t *testing.T) {
	for _, lost := range []int{0, 1} {
		t.Run(fmt.Sprintf("logs lost %d", lost), func(t *testing.T) { applyRefusal(t, lost) })
	}
}

// applyRefusal is that refusal with the first lost refused containers
// removed between the listing that shows them and the reading of their
// log: the kubelet started the next, which says the same.
func applyRefusal(t *testing.T, lost int) {
	kc, n := simCluster(t)
	n.lostLogs = lost
	const refusalLog = `I0101 00:00:00.000000 1 options.go:249] external host was not specified
E0101 00:00:00.100000 1 run.go:72] "command failed" err="DRAExtendedResourceCapacity is enabled, but depends on features that are disabled: DRAConsumableCapacity"`
	for _, c := range cluster.Components {
		n.known[c] = append(n.known[c], "DRAExtendedResourceCapacity")
	}
	n.refuse = func(c cluster.Component, g cluster.Gates) string {
		if g["DRAExtendedResourceCapacity"] && !g["DRAConsumableCapacity"] && len(g) > 1 {
			return refusalLog
		}
		return ""
	}
	before := n.manifestGates(t)
	want := cluster.GateState{
		cluster.APIServer:         {"DRAExtendedResourceCapacity": true, "DRAConsumableCapacity": false},
		cluster.Scheduler:         {"DRAExtendedResourceCapacity": true, "DRAConsumableCapacity": false},
		cluster.ControllerManager: {"DRAConsumableCapacity": false},
	}
	err := kc.apply(context.Background(), want)
	if err == nil {
		t.Fatal("the refused gates were applied")
	}
	if errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("a refusal is an outcome, not unsupported: %v", err)
	}
	if !strings.Contains(err.Error(), "DRAExtendedResourceCapacity is enabled, but depends on features that are disabled") {
		t.Errorf("error lacks the component's words:\n%v", err)
	}
	if !strings.Contains(err.Error(), "kube-apiserver exited") {
		t.Errorf("error does not name the component:\n%v", err)
	}
	if diff := cmp.Diff(before, n.manifestGates(t)); diff != "" {
		t.Errorf("manifests not restored (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(before, kc.currentGates()); diff != "" {
		t.Errorf("reported gates not restored (-before +after):\n%s", diff)
	}
	if c := n.newest(cluster.APIServer); c.state != "CONTAINER_RUNNING" {
		t.Errorf("kube-apiserver left %s", c.state)
	}
}

// A binary whose --help lists a gate it then rejects is still a binary
// without the gate: unsupported, with the component's reason.
func TestApplyUnrecognizedGateAtStartIsUnsupported(t *testing.T) {
	kc, n := simCluster(t)
	n.known[cluster.Scheduler] = append(n.known[cluster.Scheduler], "Odd")
	n.refuse = func(c cluster.Component, g cluster.Gates) string {
		if _, ok := g["Odd"]; ok {
			return `E0101 run.go:72] "command failed" err="unrecognized feature gate: Odd"`
		}
		return ""
	}
	err := kc.apply(context.Background(), cluster.GateState{cluster.Scheduler: {"Odd": true}})
	if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "unrecognized feature gate: Odd") {
		t.Errorf("error %v, want ErrUnsupported with the component's reason", err)
	}
	if got := n.manifestGates(t)[cluster.Scheduler]; !cmp.Equal(got, cluster.Gates{"DRAConsumableCapacity": false}) {
		t.Errorf("scheduler gates not restored: %v", got)
	}
}

// With the gates unchanged, a restart is a new pod: the manifest gets a
// restart annotation and keeps its gates, and no container is stopped
// (the kubelet delays a stopped container's restarts more each time).
func TestRestartWithTheSameGatesStartsANewPod(t *testing.T) {
	kc, n := simCluster(t)
	c := &Cluster{p: &Provider{opts: Options{Image: "kindest/node:v1.37.0"}}, kc: kc, cell: "defaults"}
	old := n.newest(cluster.Scheduler).id
	if err := c.Restart(context.Background(), cluster.Scheduler, cluster.Gates{"DRAConsumableCapacity": false}); err != nil {
		t.Fatal(err)
	}
	if n.wrote(cluster.Scheduler) != 1 || !strings.Contains(string(n.files[manifestPath(cluster.Scheduler)]), restartAnnotation+":") {
		t.Errorf("the manifest was written %d times, want once with %s", n.wrote(cluster.Scheduler), restartAnnotation)
	}
	if got := n.manifestGates(t)[cluster.Scheduler]; !cmp.Equal(got, cluster.Gates{"DRAConsumableCapacity": false}) {
		t.Errorf("a restart with the same gates changed them to %v", got)
	}
	for _, argv := range n.ran {
		if argv[0] == "crictl" && argv[1] == "stop" {
			t.Errorf("a container was stopped: %q", argv)
		}
	}
	if now := n.newest(cluster.Scheduler); now.id == old || now.state != "CONTAINER_RUNNING" {
		t.Errorf("scheduler container %s (%s), was %s: not restarted", now.id, now.state, old)
	}
	if err := c.Restart(context.Background(), cluster.APIServer, cluster.Gates{"DRAPartitionableDevices": false}); err != nil {
		t.Fatal(err)
	}
	if got := c.Gates()[cluster.APIServer]; !cmp.Equal(got, cluster.Gates{"DRAPartitionableDevices": false}) {
		t.Errorf("Gates after Restart: %v", got)
	}
	if err := c.Restart(context.Background(), "etcd", nil); err == nil || !strings.Contains(err.Error(), "not a control-plane component") {
		t.Errorf("restarting etcd: %v", err)
	}
}

// A component that never comes back times out naming what it waited for.
func TestWaitServingTimesOutWithTheLastObservation(t *testing.T) {
	kc, _ := simCluster(t)
	kc.timing.component = 50 * kc.timing.interval
	err := kc.waitServing(context.Background(), cluster.Scheduler, cluster.Gates{"Other": true}, nil, "")
	if err == nil || !strings.Contains(err.Error(), "still runs --feature-gates=") {
		t.Errorf("error %v", err)
	}
}

// A scheduler that exited while the API server restarted and sits in the
// kubelet's back-off (no running container, no lease) gets a new pod, and
// the restart then succeeds; a scheduler that only reconnects is left alone.
func TestAPIServerRestartBouncesAComponentInBackOff(t *testing.T) {
	for _, backOff := range []bool{false, true} {
		kc, n := simCluster(t)
		n.backOffOnAPIServerRestart = map[cluster.Component]bool{cluster.Scheduler: backOff}
		c := &Cluster{p: &Provider{opts: Options{Image: "kindest/node:v1.37.0"}}, kc: kc, cell: "defaults"}
		if err := c.Restart(context.Background(), cluster.APIServer, cluster.Gates{"DRAPartitionableDevices": false}); err != nil {
			t.Fatalf("back-off %t: %v", backOff, err)
		}
		want := 0
		if backOff {
			want = 1
		}
		if got := n.wrote(cluster.Scheduler); got != want {
			t.Errorf("back-off %t: the scheduler's manifest was written %d times, want %d", backOff, got, want)
		}
		if now := n.newest(cluster.Scheduler); now.state != "CONTAINER_RUNNING" {
			t.Errorf("back-off %t: the scheduler is %s after the restart", backOff, now.state)
		}
		if got := n.manifestGates(t)[cluster.Scheduler]; !cmp.Equal(got, cluster.Gates{"DRAConsumableCapacity": false}) {
			t.Errorf("back-off %t: the scheduler's gates became %v", backOff, got)
		}
	}
}
