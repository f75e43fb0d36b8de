package driver

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/draconform/draconform/drivers/config"
)

func allocatedClaim(name, uid string, results ...resourceapi.DeviceRequestAllocationResult) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid)},
		Status: resourceapi.ResourceClaimStatus{
			Allocation: &resourceapi.AllocationResult{
				Devices: resourceapi.DeviceAllocationResult{Results: results},
			},
		},
	}
}

func ours(request, device string) resourceapi.DeviceRequestAllocationResult {
	return resourceapi.DeviceRequestAllocationResult{Request: request, Driver: DriverName, Pool: testNode, Device: device}
}

func claimRef(c *resourceapi.ResourceClaim) *drapb.Claim {
	return &drapb.Claim{Namespace: c.Namespace, Name: c.Name, Uid: string(c.UID)}
}

// prepareClaims are the claims TestPrepareAndUnprepare puts into the fake
// API before the driver starts.
type prepareClaims struct {
	mixed, plain, unallocated, foreignPool, unknownDevice *resourceapi.ResourceClaim
}

// mixedShareID is the shareID of the shared device in the mixed claim.
const mixedShareID = types.UID("6f1c0d2e-share")

func newPrepareClaims() prepareClaims {
	share := mixedShareID
	sharedResult := ours("container-0-request-0", "shared-0")
	sharedResult.ShareID = &share
	sharedResult.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{
		"shares":    resource.MustParse("2"),
		"bandwidth": resource.MustParse("1Gi"),
	}
	return prepareClaims{
		mixed: allocatedClaim("mixed", "uid-mixed",
			// Another driver's result comes first: it must not get a number.
			resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: "gpu.example.com", Pool: "pool-x", Device: "gpu-0"},
			sharedResult,
			ours("whole/sub", "whole-0"),
		),
		plain:       allocatedClaim("plain", "uid-plain", ours("r", "whole-0")),
		unallocated: &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pending", UID: "uid-pending"}},
		foreignPool: allocatedClaim("foreign-pool", "uid-foreign-pool", resourceapi.DeviceRequestAllocationResult{
			Request: "r", Driver: DriverName, Pool: "node-b", Device: "shared-0",
		}),
		unknownDevice: allocatedClaim("unknown-device", "uid-unknown-device", ours("r", "gpu-9")),
	}
}

// The subtests run in order on one driver: unprepare undoes what the
// shared-device subtest prepared.
func TestPrepareAndUnprepare(t *testing.T) {
	c := newPrepareClaims()
	h := startHarness(t, config.Default(), c.mixed, c.plain, c.unallocated, c.foreignPool, c.unknownDevice)

	t.Run("registration advertises the v1 DRA service only", func(t *testing.T) {
		checkRegistration(t, h)
	})
	t.Run("shared device with shareID and consumed capacity", func(t *testing.T) {
		checkPrepareMixed(t, h, c.mixed)
	})
	t.Run("unprepare removes the spec and is idempotent", func(t *testing.T) {
		checkUnprepareMixed(t, h, c.mixed)
	})
	t.Run("per-claim errors", func(t *testing.T) {
		for name, tc := range perClaimErrorCases(c) {
			t.Run(name, func(t *testing.T) { checkPerClaimError(t, h, c.plain, tc) })
		}
	})
}

func checkRegistration(t *testing.T, h *harness) {
	info, err := h.registration.GetInfo(context.Background(), &registerapi.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Type != registerapi.DRAPlugin || info.Name != DriverName || info.Endpoint != h.pluginSocket {
		t.Errorf("GetInfo = type %q, name %q, endpoint %q; want %q, %q, %q", info.Type, info.Name, info.Endpoint, registerapi.DRAPlugin, DriverName, h.pluginSocket)
	}
	if want := []string{drapb.DRAPluginService}; !slices.Equal(info.SupportedVersions, want) {
		t.Errorf("supported versions = %q, want %q", info.SupportedVersions, want)
	}
}

// mixedPrepared is what NodePrepareResources answers for the mixed claim.
var mixedPrepared = map[string]claimResult{
	"uid-mixed": {Devices: []device{
		{
			Requests: []string{"container-0-request-0"},
			Pool:     testNode,
			Device:   "shared-0",
			CDIIDs:   []string{"testdriver.draconform.dev/claim=claim-uid-mixed-0"},
			ShareID:  ptrTo(string(mixedShareID)),
		},
		{
			// The helper strips the subrequest from request names.
			Requests: []string{"whole"},
			Pool:     testNode,
			Device:   "whole-0",
			CDIIDs:   []string{"testdriver.draconform.dev/claim=claim-uid-mixed-1"},
		},
	}},
}

// mixedSpec is the CDI spec the driver writes for the mixed claim.
var mixedSpec = cdiSpec{
	Version: "0.3.0",
	Kind:    "testdriver.draconform.dev/claim",
	Devices: []cdiDevice{
		{Name: "claim-uid-mixed-0", ContainerEdits: cdiContainerEdits{Env: []string{
			"DRACONFORM_CLAIM=ns/mixed",
			"DRACONFORM_0_REQUEST=container-0-request-0",
			"DRACONFORM_0_POOL=node-a",
			"DRACONFORM_0_DEVICE=shared-0",
			"DRACONFORM_0_SHARE_ID=6f1c0d2e-share",
			"DRACONFORM_0_CONSUMED_BANDWIDTH=1Gi",
			"DRACONFORM_0_CONSUMED_SHARES=2",
		}}},
		{Name: "claim-uid-mixed-1", ContainerEdits: cdiContainerEdits{Env: []string{
			"DRACONFORM_CLAIM=ns/mixed",
			"DRACONFORM_1_REQUEST=whole/sub",
			"DRACONFORM_1_POOL=node-a",
			"DRACONFORM_1_DEVICE=whole-0",
			"DRACONFORM_1_SHARE_ID=",
		}}},
	},
}

// checkPrepareMixed prepares the mixed claim twice: the second time must
// answer and write the same.
func checkPrepareMixed(t *testing.T, h *harness, mixed *resourceapi.ResourceClaim) {
	ctx := context.Background()
	resp, err := h.dra.NodePrepareResources(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{claimRef(mixed)}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mixedPrepared, prepareResults(resp)); diff != "" {
		t.Errorf("NodePrepareResources (-want +got):\n%s", diff)
	}

	spec, ok := h.readSpec(t, "uid-mixed")
	if !ok {
		t.Fatal("no CDI spec written")
	}
	if diff := cmp.Diff(mixedSpec, spec); diff != "" {
		t.Errorf("CDI spec (-want +got):\n%s", diff)
	}
	if files := h.cdiFiles(t); !slices.Equal(files, []string{"testdriver.draconform.dev-claim_uid-mixed.json"}) {
		t.Errorf("CDI directory holds %q", files)
	}

	again, err := h.dra.NodePrepareResources(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{claimRef(mixed)}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mixedPrepared, prepareResults(again)); diff != "" {
		t.Errorf("repeated NodePrepareResources (-want +got):\n%s", diff)
	}
	if spec2, _ := h.readSpec(t, "uid-mixed"); !cmp.Equal(spec, spec2) {
		t.Errorf("repeated prepare changed the spec:\n%s", cmp.Diff(spec, spec2))
	}
}

func checkUnprepareMixed(t *testing.T, h *harness, mixed *resourceapi.ResourceClaim) {
	req := &drapb.NodeUnprepareResourcesRequest{Claims: []*drapb.Claim{
		claimRef(mixed),
		{Namespace: "ns", Name: "never-prepared", Uid: "uid-never-prepared"},
	}}
	want := map[string]string{"uid-mixed": "", "uid-never-prepared": ""}
	for range 2 {
		resp, err := h.dra.NodeUnprepareResources(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, unprepareErrors(resp)); diff != "" {
			t.Errorf("NodeUnprepareResources (-want +got):\n%s", diff)
		}
		if _, ok := h.readSpec(t, "uid-mixed"); ok {
			t.Error("CDI spec still there after unprepare")
		}
	}
}

type perClaimErrorCase struct {
	claim *drapb.Claim
	want  string
}

func perClaimErrorCases(c prepareClaims) map[string]perClaimErrorCase {
	return map[string]perClaimErrorCase{
		"claim not in the API": {
			claim: &drapb.Claim{Namespace: "ns", Name: "missing", Uid: "uid-missing"},
			want:  `get resource claims: retrieve claim ns/missing: resourceclaims.resource.k8s.io "missing" not found`,
		},
		"claim UID differs": {
			claim: &drapb.Claim{Namespace: "ns", Name: "plain", Uid: "uid-old"},
			want:  `get resource claims: claim ns/plain got replaced`,
		},
		"claim not allocated": {
			claim: claimRef(c.unallocated),
			want:  `get resource claims: claim ns/pending not allocated`,
		},
		"pool of another node": {
			claim: claimRef(c.foreignPool),
			want:  `prepare claim ns/foreign-pool: request "r": pool "node-b" is not this node's pool "node-a"`,
		},
		"device not configured": {
			claim: claimRef(c.unknownDevice),
			want:  `prepare claim ns/unknown-device: request "r": device "gpu-9" is not one of this driver's devices [shared-0 whole-0]`,
		},
	}
}

// checkPerClaimError prepares the bad claim together with a good one (the
// bad one must fail alone), then on its own (it must fail the same way).
func checkPerClaimError(t *testing.T, h *harness, plain *resourceapi.ResourceClaim, tc perClaimErrorCase) {
	ctx := context.Background()
	resp, err := h.dra.NodePrepareResources(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{claimRef(plain), tc.claim}})
	if err != nil {
		t.Fatalf("whole call failed: %v", err)
	}
	if got := resp.Claims[tc.claim.Uid].GetError(); got != tc.want {
		t.Errorf("per-claim error:\n got: %s\nwant: %s", got, tc.want)
	}
	if len(resp.Claims[tc.claim.Uid].GetDevices()) != 0 {
		t.Errorf("failed claim got devices: %v", resp.Claims[tc.claim.Uid].GetDevices())
	}
	good := resp.Claims["uid-plain"]
	if good.GetError() != "" || len(good.GetDevices()) != 1 {
		t.Errorf("good claim: %v", good)
	}
	if _, ok := h.readSpec(t, tc.claim.Uid); ok {
		t.Error("failed claim has a CDI spec")
	}
	if _, ok := h.readSpec(t, "uid-plain"); !ok {
		t.Error("good claim has no CDI spec")
	}

	resp, err = h.dra.NodePrepareResources(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{tc.claim}})
	if err != nil {
		t.Fatalf("whole call failed: %v", err)
	}
	if got := resp.Claims[tc.claim.Uid].GetError(); got != tc.want {
		t.Errorf("per-claim error alone:\n got: %s\nwant: %s", got, tc.want)
	}
}

// claimResult and device are plain copies of the gRPC responses: cmp cannot
// look into protobuf messages without the protobuf module's cmp support.
type claimResult struct {
	Error   string
	Devices []device
}

type device struct {
	Requests []string
	Pool     string
	Device   string
	CDIIDs   []string
	ShareID  *string
}

func prepareResults(resp *drapb.NodePrepareResourcesResponse) map[string]claimResult {
	results := map[string]claimResult{}
	for uid, claim := range resp.GetClaims() {
		result := claimResult{Error: claim.GetError()}
		for _, d := range claim.GetDevices() {
			result.Devices = append(result.Devices, device{
				Requests: d.GetRequestNames(),
				Pool:     d.GetPoolName(),
				Device:   d.GetDeviceName(),
				CDIIDs:   d.GetCdiDeviceIds(),
				ShareID:  d.ShareId,
			})
		}
		results[uid] = result
	}
	return results
}

func unprepareErrors(resp *drapb.NodeUnprepareResourcesResponse) map[string]string {
	errs := map[string]string{}
	for uid, claim := range resp.GetClaims() {
		errs[uid] = claim.GetError()
	}
	return errs
}

func ptrTo[T any](v T) *T { return &v }
