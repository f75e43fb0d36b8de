package kind

import (
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
)

// kindAPI is the part of kind's library the provider uses, so that tests
// can stand in for Docker.
type kindAPI interface {
	Create(name string, options ...kindcluster.CreateOption) error
	Delete(name, explicitKubeconfigPath string) error
	List() ([]string, error)
	ListNodes(name string) ([]nodes.Node, error)
	KubeConfig(name string, internal bool) (string, error)
	ExportKubeConfig(name, explicitPath string, internal bool) error
	CollectLogs(name, dir string) error
}

// newKindAPI uses Docker explicitly: kind's auto-detection would pick
// podman or nerdctl where Docker is missing, and the driver image is built
// and saved with docker.
func newKindAPI() kindAPI {
	return kindcluster.NewProvider(kindcluster.ProviderWithDocker())
}
