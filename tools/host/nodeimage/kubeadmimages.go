package nodeimage

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// kubeadmImageTags asks the kubeadm going into the image which etcd and
// CoreDNS it will run, as kind's node build asks it for its whole image
// list: kubeadm 1.37 picks its etcd by a fallback with a warning, so a
// constant here would drift.
func kubeadmImageTags(ctx context.Context, kubeBinDir, version string) (etcd, coredns string, err error) {
	out, err := exec.CommandContext(ctx, filepath.Join(kubeBinDir, "kubeadm"), "config", "images", "list", "--kubernetes-version", version).Output()
	if err != nil {
		return "", "", fmt.Errorf("nodeimage: kubeadm config images list: %w", err)
	}
	if etcd, err = imageTagFrom(string(out), etcdRepository); err != nil {
		return "", "", err
	}
	coredns, err = imageTagFrom(string(out), corednsRepository)
	return etcd, coredns, err
}

const (
	etcdRepository    = "registry.k8s.io/etcd"
	corednsRepository = "registry.k8s.io/coredns/coredns"
)

// imageTagFrom is the tag of repository in kubeadm's image list.
func imageTagFrom(list, repository string) (string, error) {
	for _, line := range strings.Fields(list) {
		if rest, ok := strings.CutPrefix(line, repository+":"); ok && rest != "" {
			return rest, nil
		}
	}
	return "", fmt.Errorf("nodeimage: kubeadm names no %s image in:\n%s", repository, list)
}
