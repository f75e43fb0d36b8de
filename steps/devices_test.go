package steps_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
)

// alloc is one allocated device of a pod's claim.
type alloc struct{ pool, device, shareID string }

// devicePod seeds a bound pod whose claim (synthesized, named in its status)
// holds the given allocations; no allocations means an unallocated claim.
func devicePod(t *testing.T, f *stepstest.Fake, name, nodeName string, allocs ...alloc) {
	claim := name + "-claim"
	f.SeedYAML(name, podYAML(name, nodeName, "status: {extendedResourceClaimStatus: {resourceClaimName: "+claim+"}}"))
	src := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + claim + "}\n"
	if len(allocs) > 0 {
		src += "status:\n  allocation:\n    devices:\n      results:\n"
		for _, a := range allocs {
			src += fmt.Sprintf("      - {request: r, driver: %s, pool: %s, device: %s", stepstest.Driver, a.pool, a.device)
			if a.shareID != "" {
				src += ", shareID: " + a.shareID
			}
			src += "}\n"
		}
	}
	f.AddYAML(src)
}

func TestDevices(t *testing.T) {
	dev := func(pool, device, share string) alloc { return alloc{pool, device, share} }
	gpu0 := stepstest.Driver + "/pool-a/gpu-0"
	tests := []struct {
		name                 string
		p1, p2               []alloc
		sameFails, distFails []string
	}{
		{name: "one device, distinct shares",
			p1: []alloc{dev("pool-a", "gpu-0", "s1")}, p2: []alloc{dev("pool-a", "gpu-0", "s2")},
			distFails: []string{"pods p1 and p2 must use distinct devices, but both use " + gpu0, "p1→" + gpu0, "p2→" + gpu0}},
		{name: "one device, one share",
			p1: []alloc{dev("pool-a", "gpu-0", "s1")}, p2: []alloc{dev("pool-a", "gpu-0", "s1")},
			sameFails: []string{"pods p1 and p2 got the same shareID s1 on " + gpu0},
			distFails: []string{"both use " + gpu0}},
		{name: "one device, no shares",
			p1: []alloc{dev("pool-a", "gpu-0", "")}, p2: []alloc{dev("pool-a", "gpu-0", "")},
			sameFails: []string{"pod p1's allocation on " + gpu0 + " has no shareID"},
			distFails: []string{"both use " + gpu0}},
		{name: "one shared, one not",
			p1: []alloc{dev("pool-a", "gpu-0", "s1")}, p2: []alloc{dev("pool-a", "gpu-0", "")},
			sameFails: []string{"pod p2's allocation on " + gpu0 + " has no shareID"},
			distFails: []string{"both use " + gpu0}},
		{name: "two devices",
			p1: []alloc{dev("pool-a", "gpu-0", "s1")}, p2: []alloc{dev("pool-a", "gpu-1", "s2")},
			sameFails: []string{"pods must share one device, but they use 2", "p1→" + gpu0, "p2→" + stepstest.Driver + "/pool-a/gpu-1"}},
		{name: "same device name in another pool",
			p1: []alloc{dev("pool-a", "gpu-0", "s1")}, p2: []alloc{dev("pool-b", "gpu-0", "s2")},
			sameFails: []string{"they use 2", stepstest.Driver + "/pool-b/gpu-0"}},
		{name: "second device of a pod is shared",
			p1: []alloc{dev("pool-a", "gpu-0", ""), dev("pool-a", "gpu-1", "")}, p2: []alloc{dev("pool-a", "gpu-1", "")},
			sameFails: []string{"has no shareID"},
			distFails: []string{"both use " + stepstest.Driver + "/pool-a/gpu-1"}},
		{name: "a pod with two whole devices", p1: []alloc{dev("pool-a", "gpu-0", ""), dev("pool-a", "gpu-1", "")}, p2: []alloc{dev("pool-a", "gpu-2", "")},
			sameFails: []string{"has no shareID"}},
		{name: "claim not allocated", p1: []alloc{dev("pool-a", "gpu-0", "s1")},
			sameFails: []string{"claim p2-claim of bound pod p2 has no allocation"},
			distFails: []string{"claim p2-claim of bound pod p2 has no allocation"}},
	}
	for _, tt := range tests {
		for _, same := range []bool{true, false} {
			fails := tt.distFails
			if same {
				fails = tt.sameFails
			}
			t.Run(fmt.Sprintf("%s/same=%v", tt.name, same), func(t *testing.T) {
				f := stepstest.New(t)
				devicePod(t, f, "p1", node1, tt.p1...)
				devicePod(t, f, "p2", node1, tt.p2...)
				check(t, run(t, f, &steps.Devices{Pods: []string{"p1", "p2"}, Same: same}), fails)
			})
		}
	}
}

func TestDevicesPodProblems(t *testing.T) {
	share := alloc{"pool-a", "gpu-0", "s1"}
	t.Run("pod not bound", func(t *testing.T) {
		f := stepstest.New(t)
		devicePod(t, f, "p1", node1, share)
		devicePod(t, f, "p2", "", share)
		ctx, cancel := context.WithTimeout(context.Background(), short)
		defer cancel()
		mustFail(t, (&steps.Devices{Pods: []string{"p1", "p2"}, Same: true}).Run(ctx, f.Env), "devices of pod p2", "interrupted")
	})
	t.Run("pod bound while waiting", func(t *testing.T) {
		f := stepstest.New(t)
		devicePod(t, f, "p1", node1, share)
		devicePod(t, f, "p2", "", alloc{"pool-a", "gpu-0", "s2"})
		p2, _ := f.Env.Lookup("pod/p2")
		bindLater(f, p2, 100*time.Millisecond, node1)
		mustPass(t, run(t, f, &steps.Devices{Pods: []string{"p1", "p2"}, Same: true}))
	})
	t.Run("pod without claims", func(t *testing.T) {
		f := stepstest.New(t)
		devicePod(t, f, "p1", node1, share)
		f.SeedYAML("p2", podYAML("p2", node1, ""))
		mustFail(t, run(t, f, &steps.Devices{Pods: []string{"p1", "p2"}}), "pod p2 is bound but uses no ResourceClaim")
	})
	t.Run("claim missing", func(t *testing.T) {
		f := stepstest.New(t)
		f.SeedYAML("p1", podYAML("p1", node1, "status: {extendedResourceClaimStatus: {resourceClaimName: gone}}"))
		mustFail(t, run(t, f, &steps.Devices{Pods: []string{"p1"}}), "claim gone of pod p1", "not found")
	})
	t.Run("hand-written and template claims count", func(t *testing.T) {
		f := stepstest.New(t)
		devicePod(t, f, "p1", node1, share)
		f.SeedYAML("p2", podYAML("p2", node1, `status:
  resourceClaimStatuses: [{name: t, resourceClaimName: p2-t}]
`))
		f.AddYAML("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: p2-t}\nstatus: {allocation: {devices: {results: [{driver: d, pool: q, device: gpu-9}]}}}")
		f.SeedYAML("p3", podYAML("p3", node1, "")+"  resourceClaims: [{name: c, resourceClaimName: p3-c}]\n")
		f.AddYAML("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: p3-c}\nstatus: {allocation: {devices: {results: [{driver: d, pool: q, device: gpu-9}]}}}")
		mustPass(t, run(t, f, &steps.Devices{Pods: []string{"p1", "p2"}}))
		mustFail(t, run(t, f, &steps.Devices{Pods: []string{"p1", "p2", "p3"}}), "pods p2 and p3 must use distinct devices, but both use d/q/gpu-9")
	})
}
