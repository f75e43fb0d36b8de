package sweep

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/draconform/draconform/steps"
)

var leases = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// Recent is how long after its last object was created a run without
// Leases may still be going: a case's default timeout, twice. Without a
// Node it gives no other sign of life.
const Recent = 10 * time.Minute

// slack covers a renewal that is late because the API server was busy or
// restarting: a Lease is dead once this much past its duration.
const slack = 20 * time.Second

// life is what the cluster shows of one run being alive.
type life struct {
	// renewed is the latest renewal of its Nodes' Leases; zero: it has none.
	renewed time.Time
	// duration is that Lease's duration.
	duration time.Duration
	// created is when its newest object was created.
	created time.Time
}

// alive says whether the run may still be going at now, and why.
func (l life) alive(now time.Time) (bool, string) {
	if !l.renewed.IsZero() {
		age := now.Sub(l.renewed).Round(time.Second)
		if age <= l.duration+slack {
			return true, fmt.Sprintf("its Nodes' Leases were renewed %s ago", age)
		}
		return false, fmt.Sprintf("its Nodes' Leases were last renewed %s ago (they last %s)", age, l.duration)
	}
	age := now.Sub(l.created).Round(time.Second)
	if age < Recent {
		return true, fmt.Sprintf("it has no Node to show it is alive, and its newest object was created %s ago", age)
	}
	return false, fmt.Sprintf("it has no Node, and its newest object was created %s ago", age)
}

// renewals reads the Leases of draconform's Nodes into lives, by run.
func renewals(ctx context.Context, dyn dynamic.Interface, selector string, lives map[string]*life) error {
	list, err := dyn.Resource(leases).Namespace(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return fmt.Errorf("listing the Leases of draconform's Nodes in %s: %w", corev1.NamespaceNodeLease, err)
	}
	for _, item := range list.Items {
		var l coordinationv1.Lease
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &l); err != nil {
			return fmt.Errorf("Lease %s: %w", item.GetName(), err)
		}
		run := l.Labels[steps.RunLabel]
		if run == "" || l.Spec.RenewTime == nil {
			continue
		}
		lv := lifeOf(lives, run)
		if t := l.Spec.RenewTime.Time; t.After(lv.renewed) {
			lv.renewed = t
			lv.duration = 40 * time.Second
			if d := l.Spec.LeaseDurationSeconds; d != nil {
				lv.duration = time.Duration(*d) * time.Second
			}
		}
	}
	return nil
}

func lifeOf(lives map[string]*life, run string) *life {
	if lives[run] == nil {
		lives[run] = &life{}
	}
	return lives[run]
}
