package kind

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/draconform/draconform/tools/cluster"
)

func TestStartWithoutDockerFailsFastAndTouchesNothing(t *testing.T) {
	noDocker := func(context.Context, string, ...string) ([]byte, error) {
		return nil, &exec.Error{Name: "docker", Err: exec.ErrNotFound}
	}
	p, fk := simProvider(t, Options{Runner: noDocker})
	for _, cell := range []string{"defaults", "capacity-on"} {
		_, err := p.Start(context.Background(), cell, cluster.GateState{})
		if err == nil || !strings.HasPrefix(err.Error(), "the kind provider needs a Docker engine: `docker info` failed") {
			t.Errorf("cell %s: error %v", cell, err)
		}
		if errors.Is(err, cluster.ErrUnsupported) {
			t.Errorf("cell %s: a missing engine must fail the run, not skip cells", cell)
		}
	}
	if created, _, _ := fk.calls(); len(created) != 0 {
		t.Errorf("clusters created without Docker: %v", created)
	}
}

// The runner starts every cell before running cases: a cell gets a free
// cluster when there is one, another otherwise, and a gate already known
// to be missing costs no cluster at all.
func TestStartReusesFreeClustersAndCreatesOthers(t *testing.T) {
	ctx := context.Background()
	p, fk := simProvider(t, Options{MaxClusters: 2})
	a, err := p.Start(ctx, "defaults", cluster.GateState{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Start(ctx, "consumable-capacity-off", consumableOff)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(consumableOff, b.Gates()); diff != "" {
		t.Errorf("gates of the second cell (-want +got):\n%s", diff)
	}
	if got := b.(*Cluster).KindCluster(); got != "draconform-consumable-capacity-off" {
		t.Errorf("second cluster named %s", got)
	}
	if _, err := p.Start(ctx, "third", cluster.GateState{}); err == nil || !strings.Contains(err.Error(), "MaxClusters is 2") {
		t.Errorf("a third cluster beyond MaxClusters: %v", err)
	}
	// The KEP gate: asked of the binaries while b started, so known now.
	_, err = p.Start(ctx, "capacity-on", cluster.GateState{cluster.APIServer: {"DRAExtendedResourceCapacity": true}})
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("capacity-on: %v, want ErrUnsupported", err)
	}
	if err := p.Stop(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(ctx, a); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	c, err := p.Start(ctx, "capacity-apiserver-consumable-off", cluster.GateState{cluster.APIServer: {"DRAConsumableCapacity": false}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.(*Cluster).KindCluster(); got != "draconform" {
		t.Errorf("the freed cluster was not reused: %s", got)
	}
	if got := c.Name(); got != "kind-v1.37.0/capacity-apiserver-consumable-off" {
		t.Errorf("Name %s", got)
	}
	created, _, _ := fk.calls()
	if diff := cmp.Diff([]string{"draconform", "draconform-consumable-capacity-off"}, created); diff != "" {
		t.Errorf("clusters created (-want +got):\n%s", diff)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, deleted, logs := fk.calls()
	if diff := cmp.Diff(created, deleted); diff != "" {
		t.Errorf("deleted at Close (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(created, logs); diff != "" {
		t.Errorf("logs collected at Close (-want +got):\n%s", diff)
	}
}

func TestCloseKeepsClustersWhenAsked(t *testing.T) {
	p, fk := simProvider(t, Options{KeepCluster: true})
	if _, err := p.Start(context.Background(), "defaults", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, deleted, logs := fk.calls(); len(deleted) != 0 || len(logs) != 1 {
		t.Errorf("deleted %v, logs of %v", deleted, logs)
	}
}

// A refused start frees the cluster, with its previous gates, for the
// next cell.
func TestRefusedStartFreesTheCluster(t *testing.T) {
	ctx := context.Background()
	p, fk := simProvider(t, Options{MaxClusters: 1})
	fk.setup = func(n *simNode) {
		n.refuse = func(c cluster.Component, g cluster.Gates) string {
			if _, ok := g["DRAPartitionableDevices"]; ok && c == cluster.ControllerManager {
				return "refusing for the test"
			}
			return ""
		}
	}
	_, err := p.Start(ctx, "refused", cluster.GateState{cluster.ControllerManager: {"DRAPartitionableDevices": false}})
	if err == nil || !strings.Contains(err.Error(), "refusing for the test") || !strings.Contains(err.Error(), "kind: cell refused on cluster draconform") {
		t.Fatalf("error %v", err)
	}
	c, err := p.Start(ctx, "next", cluster.GateState{})
	if err != nil {
		t.Fatalf("the next cell found no cluster: %v", err)
	}
	if diff := cmp.Diff(cluster.GateState{}, c.Gates()); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
}

func TestNewChecksOptions(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "OutDir") {
		t.Errorf("no OutDir: %v", err)
	}
	_, err := New(Options{OutDir: t.TempDir(), KEPBinDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver") || !strings.Contains(err.Error(), "kube-scheduler") {
		t.Errorf("empty KEP binaries dir: %v", err)
	}
}

func TestProviderName(t *testing.T) {
	tests := []struct {
		image string
		kep   bool
		want  string
	}{
		{"kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5", false, "kind-v1.37.0"},
		{"kindest/node:v1.37.2", true, "kind-v1.37.2+kep-binaries"},
		{"localhost:5000/node", false, "kind-latest"},
		{"draconform.dev/kind-node:v1.37.2-0123456789ab", false, "kind-v1.37.2"},
		{"draconform.dev/kind-node:v1.37.2-ba9876543210", true, "kind-v1.37.2+kep-binaries"},
		{"example.com/kind-node:v1.37.2-rc.1", false, "kind-v1.37.2-rc.1"},
	}
	for _, tt := range tests {
		if got := providerName(tt.image, tt.kep); got != tt.want {
			t.Errorf("providerName(%q, %t) = %q, want %q", tt.image, tt.kep, got, tt.want)
		}
	}
}
