package localcp

import (
	"context"
	"slices"
	"testing"
	"time"

	kepprobe "github.com/draconform/draconform/tools/cluster/probe"
)

// TestProbeSeesServedVersions turns resource.k8s.io/v1beta2 off on a real
// API server: the probe must see it missing and v1 still served, so that
// cases going through v1beta2 skip there instead of failing; with our
// default flags it is served.
func TestProbeSeesServedVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane (and may build it first)")
	}
	binDir := ensureTestBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name  string
		extra []string
		v1b2  bool
	}{
		{name: "default", v1b2: true},
		{name: "v1beta2-off", extra: []string{"--runtime-config=resource.k8s.io/v1beta2=false"}, v1b2: false},
	} {
		p := New(Options{BinDir: binDir, OutDir: t.TempDir(), Version: testVersion, Log: testLog{t}, APIServerExtraFlags: tc.extra})
		c, err := p.Start(ctx, tc.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		caps, err := kepprobe.Read(ctx, c.RESTConfig(), false)
		_ = p.Close(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := caps.Serves("resource.k8s.io/v1beta2"); got != tc.v1b2 {
			t.Errorf("%s: Serves(resource.k8s.io/v1beta2) = %t, want %t; served %v", tc.name, got, tc.v1b2, caps.Served)
		}
		if !slices.Contains(caps.Served, "resource.k8s.io/v1") || !caps.Serves("v1") {
			t.Errorf("%s: served %v lacks resource.k8s.io/v1 or the core v1", tc.name, caps.Served)
		}
	}
}
