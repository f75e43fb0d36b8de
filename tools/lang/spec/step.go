package spec

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Step is a union: exactly one of its action fields is set. The loader
// enforces that, and steps/build.go dispatches on it in one switch.
type Step struct {
	Name string `yaml:"name" doc:"optional label shown in progress and failures"`
	// PinsGap marks the one step whose failure may mean the case's gap is
	// closed; any other step's failure fails the case.
	PinsGap bool `yaml:"pinsGap" doc:"this step pins the case's gap: only its failure runs gap.closed (exactly one step of a case with gap: sets it; not in gap.closed)"`

	Create *Write `yaml:"create" doc:"create an object (POST)"`
	Update *Write `yaml:"update" doc:"read the stored object, merge the patch, write it back (PUT)"`
	Apply  *Write `yaml:"apply" doc:"server-side apply the object"`
	Delete *Ref   `yaml:"delete" doc:"delete an object by kind/name"`

	Restart *Restart `yaml:"restart" doc:"restart one component with other gates (serial; the cell's gates come back after the case)"`
	Outage  *Outage  `yaml:"outage" doc:"stop one component, keep it away for a while, and start it again as it was (serial): an outage, as the KEP's Troubleshooting asks about"`
	Sleep   *Sleep   `yaml:"sleep" doc:"wait a fixed time, when only time tells objects apart (creationTimestamp has one-second resolution); say why"`
	// SchedulerSeesClasses is a barrier, not a wait for time.
	SchedulerSeesClasses *SchedulerSeesClasses `yaml:"schedulerSeesClasses" doc:"wait until kube-scheduler has seen every DeviceClass and ResourceClaim write the case made so far: before a pod whose claim depends on which class won, or whose first FailedScheduling message is checked"`

	Assert              *Assert              `yaml:"assert" doc:"a stored object matches a partial tree"`
	ExpectScheduled     *ExpectScheduled     `yaml:"expectScheduled" doc:"a pod gets bound to a node"`
	ExpectSomeScheduled *ExpectSomeScheduled `yaml:"expectSomeScheduled" doc:"so many of some pods get bound, whichever they are, and the others stay unbound; later steps call them by the names bound: and pending: give"`
	ExpectUnschedulable *ExpectUnschedulable `yaml:"expectUnschedulable" doc:"a pod is reported unschedulable with a message"`
	ExpectClaim         *ExpectClaim         `yaml:"expectClaim" doc:"a pod's synthesized ResourceClaim, or a named claim, has these requests and allocation"`
	ExpectNoClaim       *ExpectNoClaim       `yaml:"expectNoClaim" doc:"no ResourceClaim exists for a pod"`
	ExpectSameDevice    []string             `yaml:"expectSameDevice" doc:"these pods' allocations are all on one device"`
	ExpectDistinct      []string             `yaml:"expectDistinctDevices" doc:"no two of these pods share a device"`
	ExpectEvent         *ExpectEvent         `yaml:"expectEvent" doc:"an object of the case gets an event with this reason (and message), at most so many times"`
	ExpectNoHotLoop     *ExpectNoHotLoop     `yaml:"expectNoHotLoop" doc:"an unschedulable pod stays pending over a window without making the scheduler panic, restart or retry it in a hot loop"`
	// ExpectSchedulerMetric is the signal the KEP's PRR names for rollback.
	ExpectSchedulerMetric *ExpectSchedulerMetric `yaml:"expectSchedulerMetric" doc:"while a pod is unschedulable, one of kube-scheduler's own metrics (series matching labels, summed) reaches at least a value; runs alone, since the scheduler's gauges count every pod"`
	ExpectRunning         *ExpectRunning         `yaml:"expectRunning" doc:"a pod runs on a real kubelet, and its container saw these DRACONFORM_* variables (needs requires.testDriver)"`

	Pos Pos `yaml:"-"`
}

// Write is create, update or apply of one object, and what the API server must answer.
type Write struct {
	ObjectUse       `yaml:",inline"`
	FieldValidation string       `yaml:"fieldValidation" doc:"Strict, Warn or Ignore; default: the server's (Warn)"`
	APIVersion      string       `yaml:"apiVersion" doc:"write through this group version instead of the object's own, e.g. resource.k8s.io/v1beta2"`
	Expect          *WriteExpect `yaml:"expect" doc:"default: accepted"`
}

// WriteExpect is the API server's answer to a write. Invalid and Refused
// match what the API server says in its status (the reason, the fields of
// its causes), not its words: a release that words an error otherwise is no
// less conformant. Rejected matches the words, for the facts that only text
// carries; a blocking case that uses it names the register entry that says
// why (draconform lint).
type WriteExpect struct {
	Invalid   string `yaml:"invalid" doc:"the write must fail as Invalid (HTTP 422) with a cause at this field path or under it (spec.x.requests matches spec.x.requests[k]), whatever the message says"`
	Refused   string `yaml:"refused" doc:"the write must fail with this API status reason (Invalid, Forbidden, BadRequest, ...), whatever the message says; any: with any status the API server gives"`
	Rejected  string `yaml:"rejected" doc:"the write must fail with an error containing this text (a blocking case that matches text names the register entry that says why)"`
	Warning   string `yaml:"warning" doc:"the write must succeed with a warning containing this text"`
	NoWarning bool   `yaml:"noWarning" doc:"the write must succeed without any warning"`
}

// RefusedAny is what expect.refused takes for any API status.
const RefusedAny = "any"

// StatusReasons are the API status reasons expect.refused takes: those a
// write can fail with (k8s.io/apimachinery metav1.StatusReason).
var StatusReasons = []string{"BadRequest", "Conflict", "Forbidden", "Invalid", "MethodNotAllowed", "NotFound", "RequestEntityTooLarge", "Unauthorized", "UnsupportedMediaType"}

// Ref names an object the case created, as kind/name (kind lower case).
type Ref string

// Restart restarts one component of the control plane.
type Restart struct {
	Component string          `yaml:"component" doc:"kube-apiserver, kube-scheduler or kube-controller-manager"`
	Gates     map[string]bool `yaml:"gates" doc:"the component's explicit gates after the restart (replacing the cell's)"`
	// Binary turns a restart into a binary downgrade or re-upgrade, the
	// KEP's Upgrade / Downgrade Strategy played on one cluster's storage.
	Binary string `yaml:"binary" doc:"released: run the component from the Kubernetes release the implementation builds on (a binary downgrade); implementation: from the implementation's binary again (default: the binary it runs now)"`
}

// Outage takes one component away for a while.
type Outage struct {
	Component string   `yaml:"component" doc:"kube-apiserver, kube-scheduler or kube-controller-manager"`
	For       Duration `yaml:"for" doc:"how long it stays away, from the moment it stopped (at most 2m)"`
}

// Binaries a restart may name.
const (
	BinaryReleased       = "released"
	BinaryImplementation = "implementation"
)

// Assert matches a stored object against a partial tree.
type Assert struct {
	Ref    Ref       `yaml:"ref" doc:"kind/name of an object of the case"`
	Object yaml.Node `yaml:"object" doc:"partial tree: maps must contain, lists match element-wise, null means absent, \"<any>\" means present"`
	Within Duration  `yaml:"within" doc:"how long to wait for a match (default 10s)"`
	// APIVersion reads through another served version, e.g. to show what
	// a client of resource.k8s.io/v1beta2 sees of a v1-only field.
	APIVersion string `yaml:"apiVersion" doc:"read the object through this group version (default: the one it was written with)"`
}

// ExpectScheduled waits for a pod to be bound.
type ExpectScheduled struct {
	Pod    string   `yaml:"pod"`
	Node   string   `yaml:"node" doc:"local name of the node it must be bound to"`
	Within Duration `yaml:"within" doc:"default 30s"`
}

// ExpectSomeScheduled is for pods of which the KEP promises how many fit,
// never which: pods created together may be bound in any order.
type ExpectSomeScheduled struct {
	Pods    []string `yaml:"pods" doc:"local names of the pods"`
	Count   int      `yaml:"count" doc:"how many of them must be bound"`
	Bound   []string `yaml:"bound" doc:"names for the bound pods, count of them, in the order of pods:; later steps use them as pod names"`
	Pending []string `yaml:"pending" doc:"names for the others, in the order of pods:"`
	Within  Duration `yaml:"within" doc:"how long to wait for count of them to be bound (default 30s)"`
	For     Duration `yaml:"for" doc:"after that, none of the others may be bound for this long (default 3s)"`
}

// ExpectUnschedulable waits for the scheduler to give up on a pod.
type ExpectUnschedulable struct {
	Pod     string `yaml:"pod"`
	Message string `yaml:"message" doc:"text the PodScheduled condition or a FailedScheduling event must contain"`
	// Reason is for what the KEP promises by meaning, not by wording: a
	// release that words it otherwise is no less conformant.
	Reason string `yaml:"reason" doc:"instead of message: a meaning, matched by any wording of it known from a Kubernetes release (insufficient-devices: the allocator found no devices for the pod's claims, in any words that name no other plugin's reason; skew-guard: a message naming the gate or the field)"`
	// Lacks lets a step that pins a gap say what a release leaves out of
	// its message, so that a cluster whose message says it takes the
	// gap-closed path.
	Lacks  string   `yaml:"lacks" doc:"and the message must not contain this text: for a step that pins a gap (pinsGap), what the release's message leaves out"`
	Within Duration `yaml:"within" doc:"default 30s"`
	For    Duration `yaml:"for" doc:"after that, the pod must stay unbound this long"`
}

// ExpectClaim checks a ResourceClaim's requests and allocation.
type ExpectClaim struct {
	Pod      string         `yaml:"pod" doc:"the claim the scheduler synthesized for this pod's extended resources"`
	Claim    string         `yaml:"claim" doc:"or: a ResourceClaim of the case, by local name"`
	Requests []ClaimRequest `yaml:"requests" doc:"the exact list of device requests"`
	Results  []ClaimResult  `yaml:"results" doc:"the exact list of allocation results, in any order: each matched by a distinct result of the claim"`
	Mapping  []ClaimMapping `yaml:"mapping" doc:"pod.status.extendedResourceClaimStatus.requestMappings, exact"`
	Only     bool           `yaml:"only" doc:"with pod: this claim is the only one ever made for the pod, and was made once: the replay of claim events since the pod's creation shows no other (none made and deleted by a failed attempt)"`
	Within   Duration       `yaml:"within" doc:"default 30s"`
	Pos      Pos            `yaml:"-"`
}

// ClaimRequest is one device request of a claim.
type ClaimRequest struct {
	Name        string    `yaml:"name"`
	DeviceClass string    `yaml:"deviceClass" doc:"local name of the class"`
	Count       *int64    `yaml:"count"`
	Capacity    yaml.Node `yaml:"capacity" doc:"capacity.requests; null means the request has no capacity"`
	Absent      []string  `yaml:"absent" doc:"fields of the request's exactly: that must be absent or null, e.g. [tolerations, adminAccess, selectors]: nothing but the capacity may reach a synthesized request"`
}

// ClaimResult is one allocated device.
type ClaimResult struct {
	Request          string    `yaml:"request"`
	Device           string    `yaml:"device"`
	ConsumedCapacity yaml.Node `yaml:"consumedCapacity" doc:"null means absent"`
	ShareID          string    `yaml:"shareID" doc:"set or unset"`
	Absent           []string  `yaml:"absent" doc:"fields of the result that must be absent or null, e.g. [tolerations, adminAccess]"`
}

// ClaimMapping maps a container's extended resource to a claim request.
type ClaimMapping struct {
	Container string `yaml:"container"`
	Resource  string `yaml:"resource"`
	Request   string `yaml:"request"`
}

// ExpectRunning waits for a pod to run on a kubelet and checks what its
// container really got: the test driver's CDI spec puts the allocation into
// the environment, and the workload prints it (drivers/README.md).
type ExpectRunning struct {
	Pod       string            `yaml:"pod"`
	Container string            `yaml:"container" doc:"whose log to read; default the first container"`
	Env       map[string]string `yaml:"env" doc:"variables the container must have printed, by value; \"<any>\" means set and not empty, \"<unset>\" means not printed at all; <device> and <deviceNumber> in a name or value are the device the container was given and the number its name ends in, <result> the place of its result in the claim's allocation"`
	EnvFrom   string            `yaml:"envFrom" doc:"a variable holding more of them as a map, e.g. ${profileEnv}"`
	// Output is how a check of a file or a command inside the container
	// reaches the suite without exec rights: the workload prints it.
	Output     []string `yaml:"output" doc:"text the container's log must contain, each a line or part of one: what its command printed of a file or a tool inside the container"`
	OutputFrom string   `yaml:"outputFrom" doc:"a variable holding more of them as a list, e.g. ${profileOutput}"`
	Within     Duration `yaml:"within" doc:"default 2m (image pull and CDI injection included)"`
}

// ExpectEvent waits for an event about an object of the case.
type ExpectEvent struct {
	Ref     Ref      `yaml:"ref" doc:"kind/name of an object of the case, e.g. pod/p1"`
	Reason  string   `yaml:"reason" doc:"the event's reason, e.g. FailedScheduling"`
	Message string   `yaml:"message" doc:"text the event's message must contain"`
	AtMost  int      `yaml:"atMost" doc:"bound on how often it was recorded (the events' counts summed); 0: no bound"`
	Within  Duration `yaml:"within" doc:"default 30s"`
}

// ExpectNoHotLoop measures the KEP's integration-test promise that an
// unsatisfiable class does "not panic or hot-loop the scheduler": over a
// window, the pod stays unbound, kube-scheduler keeps its run and logs no
// panic, and it tries the pod at most MaxAttempts times. Attempts are
// counted from the scheduler's own log (at --v=2), read through the
// provider or, on a kubeadm cluster, through the API; where they cannot be
// counted the case does not apply, and says why.
type ExpectNoHotLoop struct {
	Pod         string   `yaml:"pod"`
	Over        Duration `yaml:"over" doc:"the window, at most 2m (default 20s)"`
	MaxAttempts int      `yaml:"maxAttempts" doc:"scheduling attempts for the pod allowed in the window beyond twice the baseline's (or in all, without baseline:); backoff allows a handful, a hot loop makes hundreds"`
	// Baseline makes the limit relative: a scheduler that retries every
	// pending pod on each cluster event (a busy cluster's slices) retries
	// the pod as often as any other, which is no hot loop.
	Baseline string `yaml:"baseline" doc:"a pod of the case pending for a reason KEP-6406 has no part in (a plain class, too few devices), counted over the same window: the pod may be tried up to twice as often as it, plus maxAttempts"`
}

// ExpectSchedulerMetric checks what the KEP's PRR names as the signal of a
// misconfigured class: scheduler_unschedulable_pods{plugin="DynamicResources"}
// rising for a pod that cannot be scheduled. Where the provider cannot read
// kube-scheduler's metrics the case does not apply, and says why; it never
// passes unread.
type ExpectSchedulerMetric struct {
	Pod     string            `yaml:"pod" doc:"the pod that must be found unschedulable first, and counted"`
	Metric  string            `yaml:"metric" doc:"the metric's name, e.g. scheduler_unschedulable_pods"`
	Labels  map[string]string `yaml:"labels" doc:"labels a series must have to count (others are free); the matching series are summed"`
	AtLeast float64           `yaml:"atLeast" doc:"the sum must reach this value, at least 1"`
	Within  Duration          `yaml:"within" doc:"default 30s, at most 2m"`
}

// Sleep waits a fixed time. Expectations poll and never need it; it exists
// for what only the clock orders, such as which of two DeviceClasses is the
// newer one (KEP-5004 picks the newest, by a creationTimestamp in seconds).
type Sleep struct {
	For Duration `yaml:"for" doc:"how long, at most 10s"`
	Why string   `yaml:"why" doc:"what the wait is for, shown in progress output"`
}

// SchedulerSeesClasses waits until kube-scheduler's view of DeviceClasses
// has caught up with the case's writes. A class change and the next pod
// reach the scheduler through different watches, so a pod created right
// after a delete may still be matched to the deleted class: a real, rare
// outcome on a loaded machine, and not the behaviour a case means to pin.
// So for a pod whose first attempt, made before its class or claim reached
// the scheduler, leaves the message its FailedScheduling event keeps.
type SchedulerSeesClasses struct {
	Within Duration `yaml:"within" doc:"bound on the wait (default 30s)"`
}

// ExpectNoClaim asserts that no claim belongs to a pod.
type ExpectNoClaim struct {
	Pod    string   `yaml:"pod"`
	For    Duration `yaml:"for" doc:"keep checking this long (default: check once)"`
	Ever   bool     `yaml:"ever" doc:"also no claim that existed and is gone: replays the claim events since the pod was created"`
	Within Duration `yaml:"within" doc:"wait up to this long for a moment, after the scheduler has reported the pod failing (PodScheduled False), when the pod owns no claim: for a pod the scheduler keeps retrying, each failed attempt may create a claim and delete it; one that stays fails (default: check once; not with for or ever)"`
}

// Duration is a time.Duration written as "30s".
type Duration time.Duration

// UnmarshalYAML reads Go duration syntax.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("duration %q: %w (write e.g. 30s or 1m)", n.Value, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", n.Value)
	}
	*d = Duration(v)
	return nil
}

// Or returns d, or def when d is zero.
func (d Duration) Or(def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}
