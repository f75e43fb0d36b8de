//go:build tools

// Package nodebin pins the node-side commands this module builds, so that
// `go mod tidy` keeps their dependencies: containerd v2 with its ctr client
// and runc shim, runc itself, the CNI plugins a bridge network needs, and
// crictl (for kind nodes, tools/host/nodeimage). It
// is its own module so that the suite never depends on containerd or runc.
//
// runc is the only one that needs cgo (its nsenter C code runs before the Go
// runtime starts); it is built with the seccomp tag
// (tools/cluster/localnode/build.go), linked with libseccomp, whose headers
// come from the Debian package libseccomp-dev, so that it applies the
// seccomp profile containerd gives every container.
package nodebin

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
	_ "github.com/containernetworking/plugins/plugins/ipam/host-local"
	_ "github.com/containernetworking/plugins/plugins/main/bridge"
	_ "github.com/containernetworking/plugins/plugins/main/loopback"
	_ "github.com/opencontainers/runc"
	_ "sigs.k8s.io/cri-tools/cmd/crictl"
)
