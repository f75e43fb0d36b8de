package cluster

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// DynamicClients returns a dynamic client for cfg and a REST mapper over
// cached discovery, which writing arbitrary manifests needs: the runner's
// steps and the test driver's install alike.
func DynamicClients(cfg *rest.Config) (dynamic.Interface, *restmapper.DeferredDiscoveryRESTMapper, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("dynamic client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("discovery client: %w", err)
	}
	return dyn, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)), nil
}
