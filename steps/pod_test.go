package steps_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

const unschedulableStatus = `status:
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: "0/1 nodes are available: 1 cannot allocate all claims."}
`

// nodes seeds the case's nodes n1 and n2.
func nodes(f *stepstest.Fake) {
	f.SeedYAML("n1", "apiVersion: v1\nkind: Node\nmetadata: {name: "+node1+"}")
	f.SeedYAML("n2", "apiVersion: v1\nkind: Node\nmetadata: {name: "+node2+"}")
}

func TestExpectScheduled(t *testing.T) {
	tests := []struct {
		name   string
		node   string // the node the pod is bound to, "" for none
		status string
		want   string // local name of the node the step requires
		bindAt string // bind to this node after 100ms
		fails  []string
	}{
		{name: "bound", node: node1},
		{name: "bound to the required node", node: node1, want: "n1"},
		{name: "bound while waiting", want: "n1", bindAt: node1},
		{name: "unbound", status: unschedulableStatus,
			fails: []string{"pod p1 must be scheduled", "not met within", "pod p1 is not bound", "PodScheduled=False Unschedulable", "cannot allocate all claims"}},
		{name: "unbound without condition", fails: []string{"pod p1 is not bound", "no PodScheduled condition"}},
		{name: "bound elsewhere", node: node2, want: "n1", fails: []string{"pod p1 is bound to " + node2 + ", want " + node1}},
		{name: "bound elsewhere while waiting", want: "n1", bindAt: node2, fails: []string{"bound to " + node2 + ", want " + node1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			nodes(f)
			p := f.SeedYAML("p1", podYAML("p1", tt.node, tt.status))
			// Another pod of the namespace, bound: only p1 may count.
			f.AddYAML(podYAML("other", node1, ""))
			if tt.bindAt != "" {
				bindLater(f, p, 100*time.Millisecond, tt.bindAt)
			}
			err := run(t, f, &steps.ExpectScheduled{Spec: &spec.ExpectScheduled{Pod: "p1", Node: tt.want, Within: spec.Duration(short)}})
			check(t, err, tt.fails)
		})
	}
}

func TestExpectScheduledUnknownRefs(t *testing.T) {
	f := stepstest.New(t)
	f.SeedYAML("p1", podYAML("p1", node1, ""))
	mustFail(t, run(t, f, &steps.ExpectScheduled{Spec: &spec.ExpectScheduled{Pod: "p1", Node: "n9"}}), "node/n9 was not created by this case")
	mustFail(t, run(t, f, &steps.ExpectScheduled{Spec: &spec.ExpectScheduled{Pod: "p9"}}), "pod/p9 was not created by this case")
}

func TestExpectUnschedulable(t *testing.T) {
	const msg = "cannot allocate all claims"
	tests := []struct {
		name    string
		node    string
		status  string
		message string
		event   string // FailedScheduling event message about p1
		other   string // the same about another pod
		bindAt  time.Duration
		hold    time.Duration
		fails   []string
	}{
		{name: "condition message", status: unschedulableStatus, message: msg},
		{name: "message with a variable", status: unschedulableStatus, message: "${prefix}",
			fails: []string{`say "` + stepstest.Prefix + `"`}},
		{name: "only an event has the message", status: unschedulableStatus, message: "insufficient shares", event: "0/1 nodes: insufficient shares on gpu-0"},
		{name: "another pod's event has it", status: unschedulableStatus, message: "insufficient shares", other: "insufficient shares",
			fails: []string{"pod p1 is unschedulable, but neither", "cannot allocate all claims", `"insufficient shares"`}},
		{name: "message differs", status: unschedulableStatus, message: "insufficient shares", event: "something else",
			fails: []string{"pod p1 must be unschedulable", "not met within", "neither its PodScheduled message", "something else", `"insufficient shares"`}},
		{name: "bound", node: node1, status: unschedulableStatus, message: msg, fails: []string{"pod p1 was bound to node " + node1}},
		{name: "not reported yet", message: msg, fails: []string{"pod p1 is not reported unschedulable", "no PodScheduled condition"}},
		{name: "scheduled condition", message: msg, status: "status: {conditions: [{type: PodScheduled, status: \"True\"}]}",
			fails: []string{"not reported unschedulable", "PodScheduled=True"}},
		{name: "no message", status: unschedulableStatus, message: " ", fails: []string{"pod p1: expectUnschedulable has no message to look for"}},
		{name: "stays unbound for the hold", status: unschedulableStatus, message: msg, hold: short},
		{name: "bound during the hold", status: unschedulableStatus, message: msg, hold: 2 * time.Second, bindAt: 100 * time.Millisecond,
			fails: []string{"pod p1 was bound to node " + node1 + " although it was unschedulable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			p := f.SeedYAML("p1", podYAML("p1", tt.node, tt.status))
			other := f.AddYAML(podYAML("other", "", unschedulableStatus))
			if tt.event != "" {
				f.Event(p.Object, "FailedScheduling", tt.event)
			}
			if tt.other != "" {
				f.Event(other.Object, "FailedScheduling", tt.other)
				// Same text, right pod, wrong reason: not a scheduling failure.
				f.Event(p.Object, "Scheduled", tt.other)
			}
			if tt.bindAt != 0 {
				bindLater(f, p, tt.bindAt, node1)
			}
			start := time.Now()
			err := run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{
				Pod: "p1", Message: tt.message, Within: spec.Duration(short), For: spec.Duration(tt.hold)}})
			check(t, err, tt.fails)
			if tt.bindAt != 0 && time.Since(start) > time.Second {
				t.Errorf("a binding during the hold was reported only after %s", time.Since(start))
			}
		})
	}
}

// The condition may become Unschedulable while the step waits.
func TestExpectUnschedulableWaits(t *testing.T) {
	f := stepstest.New(t)
	p := f.SeedYAML("p1", podYAML("p1", "", ""))
	f.Later(100*time.Millisecond, func() {
		f.Modify(p, func(u *unstructured.Unstructured) {
			u.Object["status"] = tree(t, unschedulableStatus)["status"]
		})
	})
	mustPass(t, run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{
		Pod: "p1", Message: "cannot allocate", Within: spec.Duration(2 * time.Second)}}))
}

// guardStatus is a pod refused with message by a scheduler's skew guard.
func guardStatus(message string) string {
	return `status:
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: "0/1 nodes are available: 1 ` + message + `."}
`
}

// reason: accepts any known wording of its meaning, in the condition or an
// event, and nothing else.
func TestExpectUnschedulableReason(t *testing.T) {
	const otherReason = `status:
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: "0/1 nodes are available: 1 device class gpu does not exist."}
`
	tests := []struct {
		name   string
		status string
		event  string
		reason string
		fails  []string
	}{
		{name: "condition words it", status: unschedulableStatus, reason: "insufficient-devices"},
		{name: "an event words it", status: otherReason, event: "0/1 nodes are available: 1 cannot allocate all claims.", reason: "insufficient-devices"},
		{name: "unrelated reason", status: otherReason, reason: "insufficient-devices",
			fails: []string{"pod p1 must be unschedulable", "device class gpu does not exist", `insufficient-devices: ["cannot allocate all claims"], or any words that name no other plugin's reason`}},
		{name: "reworded", status: guardStatus("no device has room for the pod's requests"), reason: "insufficient-devices"},
		// The skew guard explains by naming a remedy the KEP gives: the
		// gate, or the field; a guard that names neither does not explain.
		{name: "skew guard names the gate", status: guardStatus("the DRAExtendedResourceCapacity feature gate is disabled in kube-scheduler"), reason: "skew-guard"},
		{name: "skew guard names the field", status: guardStatus("DeviceClass gpu sets extendedResourceCapacityRequests, which this scheduler does not support"), reason: "skew-guard"},
		{name: "skew guard explains nothing", status: guardStatus("DeviceClass gpu is not supported"), reason: "skew-guard",
			fails: []string{`any wording of skew-guard ["DRAExtendedResourceCapacity" "extendedResourceCapacityRequests"]`}},
		{name: "unknown meaning", status: unschedulableStatus, reason: "no-devices",
			fails: []string{`unknown reason "no-devices"`, "insufficient-devices"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			p := f.SeedYAML("p1", podYAML("p1", "", tt.status))
			if tt.event != "" {
				f.Event(p.Object, "FailedScheduling", tt.event)
			}
			err := run(t, f, &steps.ExpectUnschedulable{Spec: &spec.ExpectUnschedulable{Pod: "p1", Reason: tt.reason, Within: spec.Duration(short)}})
			check(t, err, tt.fails)
		})
	}
}
