//go:build tools

// Package corednsbin pins CoreDNS, the cluster DNS kubeadm deploys, so that
// the kind node image preloads an image of it built from the module proxy
// (no registry serves registry.k8s.io/coredns here). It is its own module so
// that CoreDNS's many dependencies never move those of the Kubernetes
// binaries or of the suite.
package corednsbin

import _ "github.com/coredns/coredns"
