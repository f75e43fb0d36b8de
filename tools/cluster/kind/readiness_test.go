package kind

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/draconform/draconform/tools/cluster"
)

func TestServingWith(t *testing.T) {
	pod := func(cmd []string, ready bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler-draconform-control-plane"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-scheduler", Command: cmd}}}}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		return p
	}
	on := cluster.Gates{"DRAConsumableCapacity": true}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want cluster.Gates
		ok   bool
		why  string
	}{
		{"new gates, ready", pod([]string{"kube-scheduler", "--feature-gates=DRAConsumableCapacity=true"}, true), on, true, ""},
		{"old pod still ready", pod([]string{"kube-scheduler", "--feature-gates=DRAConsumableCapacity=false"}, true), on, false, "still runs"},
		{"new gates, not ready", pod([]string{"kube-scheduler", "--feature-gates=DRAConsumableCapacity=true"}, false), on, false, "not Ready yet"},
		{"no gates wanted, none set", pod([]string{"kube-scheduler"}, true), nil, true, ""},
		{"no gates wanted, some set", pod([]string{"kube-scheduler", "--feature-gates=DRAConsumableCapacity=true"}, true), nil, false, "still runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := servingWith(tt.pod, cluster.Scheduler, tt.want)
			if ok != tt.ok || !strings.Contains(why, tt.why) {
				t.Errorf("got %t %q, want %t %q", ok, why, tt.ok, tt.why)
			}
		})
	}
	if ok, why := servingWith(pod(nil, true), cluster.APIServer, nil); ok || !strings.Contains(why, "no container kube-apiserver") {
		t.Errorf("wrong container: %t %q", ok, why)
	}
}

func TestLease(t *testing.T) {
	holder := "draconform-control-plane_4d1c"
	at := metav1.NewMicroTime(time.Unix(100, 0))
	l := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &at}}
	if leaseHolder(l) != holder || !leaseRenewed(l).Equal(at.Time) {
		t.Errorf("holder %q renewed %v", leaseHolder(l), leaseRenewed(l))
	}
	if leaseHolder(nil) != "" || !leaseRenewed(&coordinationv1.Lease{}).IsZero() {
		t.Error("an empty lease has a holder or a renewal")
	}
	if leaseName(cluster.APIServer) != "" || leaseName(cluster.ControllerManager) != "kube-controller-manager" {
		t.Error("lease names")
	}
}
