package nodeimage

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// etcdImageTag asks the kubeadm going into the image which etcd it will run,
// as kind's node build asks it for its whole image list: kubeadm 1.37 picks
// its etcd by a fallback with a warning, so a constant here would drift.
func etcdImageTag(ctx context.Context, kubeBinDir, version string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(kubeBinDir, "kubeadm"), "config", "images", "list", "--kubernetes-version", version).Output()
	if err != nil {
		return "", fmt.Errorf("nodeimage: kubeadm config images list: %w", err)
	}
	return etcdTagFrom(string(out))
}

func etcdTagFrom(list string) (string, error) {
	for _, line := range strings.Fields(list) {
		if rest, ok := strings.CutPrefix(line, "registry.k8s.io/etcd:"); ok && rest != "" {
			return rest, nil
		}
	}
	return "", fmt.Errorf("nodeimage: kubeadm names no registry.k8s.io/etcd image in:\n%s", list)
}
