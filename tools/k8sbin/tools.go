//go:build tools

// Package k8sbin pins the commands this module builds so that `go mod tidy`
// keeps their dependencies.
package k8sbin

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
