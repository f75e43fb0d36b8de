//go:build tools

// Package tools pins the ginkgo CLI, so `go run github.com/onsi/ginkgo/v2/ginkgo -p`
// works from go.mod's versions without a separate install, and the modules
// the test driver and the kind provider build on.
package tools

import (
	_ "github.com/onsi/ginkgo/v2/ginkgo"
	_ "google.golang.org/grpc"
	_ "k8s.io/dynamic-resource-allocation/kubeletplugin"
	_ "k8s.io/dynamic-resource-allocation/resourceslice"
	_ "k8s.io/kubelet/pkg/apis/dra/v1"
	_ "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	_ "sigs.k8s.io/kind/pkg/cluster"
)
