package kubeconfig

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/draconform/draconform/tools/cluster"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Export saves what reaches c as a kubeconfig file (mode 0600), so that
// other ginkgo processes reach the same cluster: the kubeconfig c was
// adopted from, cut to its context, or else its REST config. The caller
// chooses a private folder: the file holds credentials.
func Export(c cluster.Cluster, path string) error {
	if a, ok := c.(*Adopted); ok && a.raw != nil {
		if err := clientcmd.WriteToFile(*a.raw, path); err != nil {
			return fmt.Errorf("writing kubeconfig %s: %w", path, err)
		}
		return nil
	}
	return Write(c.RESTConfig(), path)
}

// Write saves credentials as a kubeconfig file (mode 0600), exec plugin
// and auth provider included.
func Write(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["draconform"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		CertificateAuthority:     cfg.CAFile,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	kc.AuthInfos["draconform"] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		ClientCertificateData: cfg.CertData,
		ClientCertificate:     cfg.CertFile,
		ClientKeyData:         cfg.KeyData,
		ClientKey:             cfg.KeyFile,
		Exec:                  cfg.ExecProvider,
		AuthProvider:          cfg.AuthProvider,
		Impersonate:           cfg.Impersonate.UserName,
		ImpersonateUID:        cfg.Impersonate.UID,
		ImpersonateGroups:     cfg.Impersonate.Groups,
		ImpersonateUserExtra:  cfg.Impersonate.Extra,
	}
	kc.Contexts["draconform"] = &clientcmdapi.Context{Cluster: "draconform", AuthInfo: "draconform"}
	kc.CurrentContext = "draconform"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// Load reads a kubeconfig written by Write.
func Load(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig %s: %w", path, err)
	}
	return cfg, nil
}
