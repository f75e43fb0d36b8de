package kubeconfig

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// credentials are what a Provider resolved: the REST config its steps use,
// and the kubeconfig it came from, cut to the one context, which is what
// other processes are handed. Handing on the kubeconfig rather than the
// REST config keeps exec plugins and auth providers (EKS, GKE, AKS style
// clusters), which a REST config rebuilt field by field would lose.
type credentials struct {
	name string
	cfg  *rest.Config
	raw  *clientcmdapi.Config // nil in a pod, where there is no kubeconfig
}

// resolve finds the credentials as kubectl does: path if given (it must
// exist), else every file of $KUBECONFIG merged in order, else
// ~/.kube/config; in a pod with none of them, the pod's service account
// from saDir.
func resolve(path, context, saDir string) (credentials, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	files := rules.GetLoadingPrecedence()
	if path != "" {
		files = []string{path}
	}
	if path == "" && !anyExists(files) {
		if os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
			return credentials{}, fmt.Errorf("no kubeconfig: pass --kubeconfig or set KUBECONFIG (looked for %s), or run in a pod with its service account", strings.Join(files, ", "))
		}
		// In a pod (a Sonobuoy plugin, a Job): the service account's
		// token and CA, referred to by path and never copied.
		cfg, err := InCluster(saDir)
		if err != nil {
			return credentials{}, err
		}
		return credentials{name: "in-cluster", cfg: cfg}, nil
	}
	where := strings.Join(files, string(os.PathListSeparator))
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	raw, err := cc.RawConfig()
	if err != nil {
		return credentials{}, fmt.Errorf("reading kubeconfig %s: %w", where, err)
	}
	cfg, err := cc.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return credentials{}, fmt.Errorf("kubeconfig %s names no cluster to use: it is empty, or has no current-context (pass --context)", where)
	}
	if err != nil {
		return credentials{}, fmt.Errorf("loading kubeconfig %s: %w", where, err)
	}
	if context != "" {
		raw.CurrentContext = context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return credentials{}, fmt.Errorf("kubeconfig %s: %w", where, err)
	}
	return credentials{name: "kubeconfig:" + where, cfg: cfg, raw: &raw}, nil
}

func anyExists(files []string) bool {
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}
