package usecase

import (
	"context"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/draconform/draconform/tools/certify/sonobuoy"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
)

// SonobuoyApply applies what sonobuoy-plugin --rbac prints to the cluster
// of r.Kubeconfig, with its credentials (an administrator's), so that
// sonobuoy delete leaves nothing of it: Sonobuoy's namespace is made here,
// and owns what sonobuoy delete would leave (sonobuoy.Applier). It says on
// w what it will do before it writes.
func SonobuoyApply(ctx context.Context, r SonobuoyRequest, w io.Writer) error {
	if !r.RBAC {
		return refuse("--apply applies what --rbac prints: give --rbac too")
	}
	p := &kubeconfig.Provider{Path: r.Kubeconfig.Path, Context: r.Kubeconfig.Context}
	cfg, err := p.Credentials()
	if err != nil {
		return failed(2, err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return failed(2, fmt.Errorf("a client of %s: %w", cfg.Host, err))
	}
	return sonobuoyApply(ctx, sonobuoy.Applier{Kube: kube, Namespace: r.Namespace, Account: r.Account}, cfg.Host, w)
}

func sonobuoyApply(ctx context.Context, a sonobuoy.Applier, host string, w io.Writer) error {
	plan, err := a.Plan(ctx)
	if err != nil {
		return failed(2, err)
	}
	fmt.Fprintf(w, "Applying to %s what draconform sonobuoy-plugin --rbac prints for service account %s/%s:\n", host, a.Namespace, a.Account)
	for _, s := range plan {
		fmt.Fprintf(w, "  %-9s %s: %s\n", s.Action, s.Object, s.Fate)
	}
	done, err := a.Apply(ctx)
	if err != nil {
		return fmt.Errorf("%w\n  %d of the %d objects were applied; apply again once that is fixed", err, len(done), len(plan))
	}
	counts := map[sonobuoy.Action]int{}
	var stay []string
	for _, s := range done {
		counts[s.Action]++
		if s.Action == sonobuoy.Keep {
			stay = append(stay, s.Object)
		}
	}
	fmt.Fprintf(w, "Done: %d created, %d updated, %d unchanged, %d kept as they were.\n", counts[sonobuoy.Create], counts[sonobuoy.Update], counts[sonobuoy.Unchanged], counts[sonobuoy.Keep])
	fmt.Fprintf(w, "Sonobuoy's namespace %s exists now, and Sonobuoy's preflight refuses an existing namespace: run it with --skip-preflight=existingnamespace,\n", a.Namespace)
	fmt.Fprintf(w, "  sonobuoy run --namespace %s --skip-preflight=existingnamespace --plugin <(draconform sonobuoy-plugin ...)\n", a.Namespace)
	fmt.Fprintf(w, "sonobuoy delete --namespace %s --wait deletes the namespace, and Kubernetes' garbage collector then the objects it owns, within moments.\n", a.Namespace)
	if len(stay) > 0 {
		fmt.Fprintf(w, "It leaves what existed before and this install did not make: %s.\n", strings.Join(stay, ", "))
	}
	return nil
}
