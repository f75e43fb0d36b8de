//go:build tools

// Package k8sbin pins the commands this module builds so that `go mod tidy`
// keeps their dependencies: the control plane and kubelet the embedded
// provider runs, and the rest of a kind node (kube-proxy, kubeadm, kubectl).
package k8sbin

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
