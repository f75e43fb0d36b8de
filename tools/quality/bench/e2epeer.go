package bench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
)

// peerInterval is how often the peer's wait polls in the ratio's
// measurement: tuned well below the framework's default of 5 s, so the
// floor is the framework's work, not its patience.
const peerInterval = 100 * time.Millisecond

// E2ETest is one e2e-framework test's per-test overhead, in seconds.
type E2ETest struct {
	Create, WaitSA, Delete float64
}

// Seconds is the whole overhead.
func (t E2ETest) Seconds() float64 { return t.Create + t.WaitSA + t.Delete }

// MeasureE2EOverhead does what sigs.k8s.io/e2e-framework does around each
// test that wants a namespace of its own, n times on the cluster of
// kubeconfig, through its klient: envfuncs.CreateNamespace's create,
// wait.For the namespace's default ServiceAccount (polled every interval,
// at once first; interval 0 is the framework's defaults: 5 s, not at
// once), envfuncs.DeleteNamespace's delete. (envfuncs itself needs modules
// go.mod does not hold; its namespace functions are these calls.)
func MeasureE2EOverhead(ctx context.Context, kubeconfig string, n int, interval time.Duration) ([]E2ETest, error) {
	client, err := klient.NewWithKubeConfigFile(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("e2e-framework client: %w", err)
	}
	var out []E2ETest
	for range n {
		name := "draconform-bench-e2e-" + rand.String(8)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		var t E2ETest
		began := time.Now()
		if err := client.Resources().Create(ctx, ns); err != nil {
			return nil, fmt.Errorf("creating namespace %s: %w", name, err)
		}
		t.Create = time.Since(began).Seconds()
		began = time.Now()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
		opts := []wait.Option{wait.WithContext(ctx), wait.WithTimeout(time.Minute)}
		if interval > 0 {
			opts = append(opts, wait.WithInterval(interval), wait.WithImmediate())
		}
		werr := wait.For(conditions.New(client.Resources()).ResourceMatch(sa, func(k8s.Object) bool { return true }), opts...)
		t.WaitSA = time.Since(began).Seconds()
		began = time.Now()
		if err := client.Resources().Delete(ctx, ns); err != nil {
			return nil, fmt.Errorf("deleting namespace %s: %w", name, err)
		}
		t.Delete = time.Since(began).Seconds()
		if werr != nil {
			return nil, fmt.Errorf("namespace %s: no default ServiceAccount: %w", name, werr)
		}
		out = append(out, t)
	}
	return out, nil
}
