package steps

import (
	"context"
	"fmt"
	"github.com/draconform/draconform/tools/lang/spec"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// allocation is one allocated device of a pod, with its share if any.
type allocation struct {
	Device  string // driver/pool/device
	ShareID string
	Claim   string
	Request string
	// Index is the result's place in its claim's allocation: a driver may
	// name a container's variables by it.
	Index int
}

// Devices asserts a relation between the devices of several pods: all on
// one device (with distinct shareIDs), or no device shared.
type Devices struct {
	Pods []string
	Same bool
}

// Describe implements Step.
func (s *Devices) Describe() string {
	if s.Same {
		return "pods " + strings.Join(s.Pods, ", ") + " share one device"
	}
	return "pods " + strings.Join(s.Pods, ", ") + " use distinct devices"
}

// Run implements Step.
func (s *Devices) Run(ctx context.Context, env *Env) error {
	byPod := map[string][]allocation{}
	for _, p := range s.Pods {
		allocs, _, err := podAllocations(ctx, env, p, defaultScheduleWithin)
		if err != nil {
			return err
		}
		byPod[p] = allocs
	}
	if s.Same {
		return sameDevice(s.Pods, byPod)
	}
	return distinctDevices(s.Pods, byPod)
}

func sameDevice(pods []string, byPod map[string][]allocation) error {
	devices := map[string]bool{}
	shares := map[string]string{}
	for _, p := range pods {
		for _, a := range byPod[p] {
			devices[a.Device] = true
			if a.ShareID == "" {
				return fmt.Errorf("pod %s's allocation on %s has no shareID; a device allocated more than once must give each allocation one", p, a.Device)
			}
			if other, dup := shares[a.ShareID]; dup {
				return fmt.Errorf("pods %s and %s got the same shareID %s on %s", other, p, a.ShareID, a.Device)
			}
			shares[a.ShareID] = p
		}
	}
	if len(devices) != 1 {
		return fmt.Errorf("pods must share one device, but they use %d: %s", len(devices), describeAllocations(pods, byPod))
	}
	return nil
}

func distinctDevices(pods []string, byPod map[string][]allocation) error {
	owner := map[string]string{}
	for _, p := range pods {
		for _, a := range byPod[p] {
			if other, dup := owner[a.Device]; dup && other != p {
				return fmt.Errorf("pods %s and %s must use distinct devices, but both use %s: %s", other, p, a.Device, describeAllocations(pods, byPod))
			}
			owner[a.Device] = p
		}
	}
	return nil
}

func describeAllocations(pods []string, byPod map[string][]allocation) string {
	var parts []string
	for _, p := range pods {
		var ds []string
		for _, a := range byPod[p] {
			ds = append(ds, a.Device)
		}
		parts = append(parts, p+"→"+strings.Join(ds, "+"))
	}
	return strings.Join(parts, ", ")
}

// podAllocations waits until the pod is bound and every claim it uses is
// allocated, then lists the devices, with the bound pod they were read for.
func podAllocations(ctx context.Context, env *Env, local string, within time.Duration) ([]allocation, *corev1.Pod, error) {
	var pod *corev1.Pod
	err := watchPod(ctx, env, local, within, func(p *corev1.Pod) error {
		if p.Spec.NodeName == "" {
			return notYet{"pod " + local + " is not bound; " + schedulingState(p)}
		}
		pod = p
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("devices of pod %s: %w", local, err)
	}
	claims := podClaimNames(pod)
	if len(claims) == 0 {
		return nil, nil, fmt.Errorf("pod %s is bound but uses no ResourceClaim, so it has no device to compare", local)
	}
	var out []allocation
	for _, name := range claims {
		u, err := env.Clients.Dyn.Resource(ClaimGVR).Namespace(env.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("claim %s of pod %s: %w", name, local, err)
		}
		results, _, _ := unstructured.NestedSlice(u.Object, "status", "allocation", "devices", "results")
		if len(results) == 0 {
			return nil, nil, fmt.Errorf("claim %s of bound pod %s has no allocation", name, local)
		}
		for i, r := range results {
			m, _ := r.(map[string]any)
			str := func(k string) string { s, _ := m[k].(string); return s }
			out = append(out, allocation{Device: str("driver") + "/" + str("pool") + "/" + str("device"), ShareID: str("shareID"), Claim: name, Request: str("request"), Index: i})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out, pod, nil
}

// podClaimNames lists every claim a pod uses: hand-written, from templates,
// and the one synthesized for its extended resources.
func podClaimNames(p *corev1.Pod) []string {
	var out []string
	for _, rc := range p.Spec.ResourceClaims {
		if rc.ResourceClaimName != nil {
			out = append(out, *rc.ResourceClaimName)
		}
	}
	for _, st := range p.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			out = append(out, *st.ResourceClaimName)
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil && st.ResourceClaimName != "" {
		out = append(out, st.ResourceClaimName)
	}
	return out
}

func checkDevices(c Checker, p spec.Pos, pods []string) {
	if len(pods) < 2 {
		c.Problem(p, "", "name at least two pods")
	}
	for _, pod := range pods {
		c.Need(p, spec.RefOf("Pod", pod))
	}
}
