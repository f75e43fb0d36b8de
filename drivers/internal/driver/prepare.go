package driver

import (
	"context"
	"fmt"
	"maps"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"

	"github.com/draconform/draconform/drivers/envcontract"
	"github.com/draconform/draconform/drivers/mutant"
)

// PrepareResourceClaims implements kubeletplugin.DRAPlugin. The helper has
// already fetched the claims and checked that they are allocated and have
// the UIDs the kubelet asked for; failures are per claim.
func (d *Driver) PrepareResourceClaims(ctx context.Context, claims []*resourceapi.ResourceClaim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	result := make(map[types.UID]kubeletplugin.PrepareResult, len(claims))
	for _, claim := range claims {
		devices, err := d.prepareClaim(ctx, claim)
		if err != nil {
			err = fmt.Errorf("prepare claim %s: %w", klog.KObj(claim), err)
		}
		result[claim.UID] = kubeletplugin.PrepareResult{Devices: devices, Err: err}
	}
	return result, nil
}

// prepareClaim writes the claim's CDI spec: one CDI device per allocation
// result of this driver, carrying that result's environment. Writing the
// same content again makes repeated calls idempotent.
func (d *Driver) prepareClaim(ctx context.Context, claim *resourceapi.ResourceClaim) ([]kubeletplugin.Device, error) {
	spec := cdiSpec{Version: cdiVersion, Kind: cdiKind}
	var devices []kubeletplugin.Device
	for _, result := range claim.Status.Allocation.Devices.Results {
		if result.Driver != DriverName {
			continue
		}
		// The scheduler allocated from our slice; anything else means it
		// used stale or foreign data, which a conformance run must see.
		if result.Pool != d.nodeName {
			return nil, fmt.Errorf("request %q: pool %q is not this node's pool %q", result.Request, result.Pool, d.nodeName)
		}
		if !d.devices[result.Device] {
			return nil, fmt.Errorf("request %q: device %q is not one of this driver's devices %v", result.Request, result.Device, slices.Sorted(maps.Keys(d.devices)))
		}
		if mutant.Active != "" {
			result = mutate(result, d.config.Devices)
		}
		i := len(spec.Devices)
		env, err := envcontract.ResultEnv(i, result)
		if err != nil {
			return nil, fmt.Errorf("request %q: %w", result.Request, err)
		}
		name := cdiDeviceName(claim.UID, i)
		spec.Devices = append(spec.Devices, cdiDevice{
			Name: name,
			ContainerEdits: cdiContainerEdits{
				Env: append([]string{envcontract.ClaimEnv(claim.Namespace, claim.Name)}, env...),
			},
		})
		devices = append(devices, kubeletplugin.Device{
			Requests:     []string{result.Request},
			PoolName:     result.Pool,
			DeviceName:   result.Device,
			CDIDeviceIDs: []string{cdiDeviceID(name)},
			ShareID:      result.ShareID,
		})
	}
	if len(devices) == 0 {
		// CDI rejects a spec without devices; there is nothing to inject.
		return nil, nil
	}
	if mutant.Active == "first-share-for-every-container" {
		devices = firstShareForAll(devices)
	}
	if err := d.cdi.write(claim.UID, spec); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Prepared claim", "claim", klog.KObj(claim), "uid", claim.UID, "devices", devices)
	return devices, nil
}

// UnprepareResourceClaims implements kubeletplugin.DRAPlugin. Everything
// needed is derived from the claim UID, so this works after a restart and
// for claims that were never prepared here.
func (d *Driver) UnprepareResourceClaims(ctx context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	result := make(map[types.UID]error, len(claims))
	for _, claim := range claims {
		err := d.cdi.remove(claim.UID)
		if err != nil {
			err = fmt.Errorf("unprepare claim %s: %w", claim.NamespacedName, err)
		} else {
			klog.FromContext(ctx).V(2).Info("Unprepared claim", "claim", claim.NamespacedName, "uid", claim.UID)
		}
		result[claim.UID] = err
	}
	return result, nil
}
