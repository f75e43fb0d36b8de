package driver

import (
	"context"

	"google.golang.org/grpc"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
)

// perClaimPrepareErrors makes a claim that cannot be fetched fail alone.
//
// kubeletplugin fetches all claims of a NodePrepareResources call before it
// calls the driver and fails the whole call when one of them is missing,
// replaced (other UID) or unallocated. When that happens, this retries the
// claims one by one, so that every claim gets its own result: the good ones
// prepared, the bad ones with the helper's error as their per-claim error.
// Successful calls pass through untouched, costing nothing extra.
func perClaimPrepareErrors(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	prepare, ok := req.(*drapb.NodePrepareResourcesRequest)
	if !ok {
		return handler(ctx, req)
	}
	resp, err := handler(ctx, req)
	if err == nil || ctx.Err() != nil {
		return resp, err
	}
	merged := &drapb.NodePrepareResourcesResponse{Claims: map[string]*drapb.NodePrepareResourceResponse{}}
	if len(prepare.Claims) == 1 {
		merged.Claims[prepare.Claims[0].Uid] = &drapb.NodePrepareResourceResponse{Error: err.Error()}
		return merged, nil
	}
	for _, claim := range prepare.Claims {
		one, err := handler(ctx, &drapb.NodePrepareResourcesRequest{Claims: []*drapb.Claim{claim}})
		if err != nil {
			merged.Claims[claim.Uid] = &drapb.NodePrepareResourceResponse{Error: err.Error()}
			continue
		}
		oneResp, _ := one.(*drapb.NodePrepareResourcesResponse)
		for uid, result := range oneResp.GetClaims() {
			merged.Claims[uid] = result
		}
	}
	return merged, nil
}
