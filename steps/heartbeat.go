package steps

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// heartbeatPeriod is how often a suite node's Lease is renewed: well inside
// the node lifecycle controller's grace period (50 s in v1.37), after which
// a node nobody renews is tainted unreachable and no new pod lands on it.
const heartbeatPeriod = 10 * time.Second

// startHeartbeat renews a Lease for a suite node, as a kubelet would, until
// the case ends. Clusters that run the node lifecycle controller (kind, any
// real cluster) would otherwise taint the node about a minute after it was
// created, and a case longer than that would see its pods unschedulable
// for a reason that has nothing to do with DRA. The Lease is the suite's
// own: labelled with the run, owned by the node (deleted with it), and
// deleted when the case ends.
func startHeartbeat(env *Env, node *corev1.Node) error {
	leases := env.Clients.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:   node.Name,
			Labels: map[string]string{RunLabel: env.RunID, CaseLabel: env.CaseHash},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
			}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(node.Name),
			LeaseDurationSeconds: ptr.To(int32(40)),
		},
	}
	ctx, stop := context.WithCancel(context.Background())
	renew := func(ctx context.Context) error {
		now := metav1.NewMicroTime(time.Now())
		cur, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			l := lease.DeepCopy()
			l.Spec.RenewTime = &now
			_, err = leases.Create(ctx, l, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		cur.Spec.RenewTime = &now
		_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	if err := renew(ctx); err != nil {
		stop()
		return fmt.Errorf("creating the Lease %s/%s that keeps node %s alive: %w", corev1.NamespaceNodeLease, node.Name, node.Name, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		reported := false
		wait.Until(func() {
			if err := renew(ctx); err != nil && ctx.Err() == nil && !reported {
				// Once: an API server that restarts makes renewals fail
				// for a while, and the next one catches up.
				env.logf("renewing the Lease of node %s: %v (retrying every %s)", node.Name, err, heartbeatPeriod)
				reported = true
			}
		}, heartbeatPeriod, ctx.Done())
	}()
	env.Defer("stop the heartbeat of node "+node.Name, func(ctx context.Context) error {
		stop()
		<-done
		err := leases.Delete(ctx, node.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	return nil
}
