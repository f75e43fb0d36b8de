package kubeconfig

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
)

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := Write(&rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "t", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartWithoutDeclaredCell(t *testing.T) {
	p := &Provider{Path: writeKubeconfig(t)}
	c, err := p.Start(context.Background(), "defaults", cluster.GateState{})
	if err != nil {
		t.Fatalf("a cell without gates must run: %v", err)
	}
	if cfg := c.RESTConfig(); cfg.Host != "https://127.0.0.1:6443" || cfg.BearerToken != "t" {
		t.Errorf("credentials not read back: %+v", cfg)
	}
	if c.Gates() != nil {
		t.Errorf("gates of an undeclared cluster must be unknown, got %v", c.Gates())
	}
	_, err = p.Start(context.Background(), "capacity-on", cluster.GateState{cluster.APIServer: {"DRAExtendedResourceCapacity": true}})
	if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "--as-cell capacity-on") {
		t.Errorf("a gated cell must be unsupported with a hint, got %v", err)
	}
}

func TestStartAsDeclaredCell(t *testing.T) {
	p := &Provider{Path: writeKubeconfig(t), Cell: "capacity-on"}
	gates := cluster.GateState{cluster.APIServer: {"DRAExtendedResourceCapacity": true}}
	c, err := p.Start(context.Background(), "capacity-on", gates)
	if err != nil {
		t.Fatalf("the declared cell must run: %v", err)
	}
	if !c.Gates()[cluster.APIServer]["DRAExtendedResourceCapacity"] {
		t.Errorf("the declared cell's gates must be reported, got %v", c.Gates())
	}
	if _, err := p.Start(context.Background(), "defaults", nil); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("another cell must be unsupported, got %v", err)
	}
}

func TestMissingKubeconfig(t *testing.T) {
	p := &Provider{Path: filepath.Join(t.TempDir(), "none")}
	if _, err := p.Start(context.Background(), "defaults", nil); err == nil || errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("a missing kubeconfig must fail, not skip: %v", err)
	}
}

// A version-skew cell runs only on a cluster declared to be it: draconform
// cannot see, let alone choose, which binaries a cluster runs.
func TestVersionSkewCellNeedsDeclaration(t *testing.T) {
	path := writeKubeconfig(t)
	skew := cluster.GateState{cluster.APIServer: {"DRAExtendedResourceCapacity": true}}
	released := []cluster.Component{cluster.Scheduler}
	undeclared := &Provider{Path: path}
	if _, err := cluster.StartCell(context.Background(), undeclared, "apiserver-upgraded-first", skew, released); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("an undeclared cluster must not run a version-skew cell, got %v", err)
	}
	declared := &Provider{Path: path, Cell: "apiserver-upgraded-first"}
	if _, err := cluster.StartCell(context.Background(), declared, "apiserver-upgraded-first", skew, released); err != nil {
		t.Errorf("the declared cell must run: %v", err)
	}
}
