package kubeconfig

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
)

// DefaultServiceAccountDir is where Kubernetes mounts a pod's service
// account token and the cluster's CA.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InCluster builds the config of the pod's service account from the
// environment Kubernetes gives every container (KUBERNETES_SERVICE_HOST and
// _PORT) and the token and CA in dir. It does what client-go's
// rest.InClusterConfig does, from a folder that can be given, so that the
// path is tested against a real API server outside a pod. The token is read
// from its file on every request, so a rotated one is used.
func InCluster(dir string) (*rest.Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set")
	}
	token := filepath.Join(dir, "token")
	if _, err := os.Stat(token); err != nil {
		return nil, fmt.Errorf("in-cluster: no service account token: %w", err)
	}
	ca := filepath.Join(dir, "ca.crt")
	if _, err := os.Stat(ca); err != nil {
		return nil, fmt.Errorf("in-cluster: no cluster CA: %w", err)
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: ca},
	}, nil
}
