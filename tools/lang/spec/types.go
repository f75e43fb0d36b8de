// Package spec holds the YAML language of draconform: suites of cases, the
// fixtures they reuse and the gate cells they run in. Every type here is
// decoded strictly by the loader and exported as JSON Schema, so a field's
// `doc` tag is the documentation users read in their editor.
package spec

import (
	"gopkg.in/yaml.v3"
)

// APIVersion is the only version of the language so far.
const APIVersion = "draconform.dev/v1alpha1"

// Pos is where a value was written, for file:line errors. The loader fills it.
type Pos struct {
	File string
	Line int
}

// Suite is one file of cases on one feature area.
type Suite struct {
	APIVersion  string   `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind        string   `yaml:"kind" doc:"always Suite"`
	Name        string   `yaml:"name" doc:"suite name, a DNS label; becomes the label suite:<name>"`
	Description string   `yaml:"description" doc:"what the suite covers"`
	Cells       []string `yaml:"cells" doc:"gate cells every case runs in unless it names its own"`
	KEP         []string `yaml:"kep" doc:"KEP sections every case traces to, in addition to its own"`
	Vars        Vars     `yaml:"vars" doc:"variables every case sees; a case's vars override them"`
	Cases       []Case   `yaml:"cases" doc:"the table"`
	Pos         Pos      `yaml:"-"`
}

// Case is one row of a suite: objects given, steps taken, what must follow.
type Case struct {
	ID          string      `yaml:"id" doc:"unique in the suite, a DNS label"`
	Title       string      `yaml:"title" doc:"one sentence saying what must hold"`
	KEP         []string    `yaml:"kep" doc:"KEP sections this case proves (see draconform docs)"`
	Cells       []string    `yaml:"cells" doc:"gate cells to run in; default: the suite's"`
	Requires    Requires    `yaml:"requires" doc:"what the cluster must be able to do, else the case is skipped with the reason"`
	Contested   string      `yaml:"contested" doc:"set when the case rests on a contested reading of the KEP: the register entry; the case blocks its claims unless the entry's stance is open"`
	Vars        Vars        `yaml:"vars" doc:"variables for every object and step of the case"`
	Given       []ObjectUse `yaml:"given" doc:"objects created, in order, before the steps"`
	Steps       []Step      `yaml:"steps" doc:"actions and expectations, in order"`
	Pos         Pos         `yaml:"-"`
	KnownIssues string      `yaml:"knownIssue" doc:"an upstream defect this case documents; reported apart, and blocking like any other case (pin the defect with gap: so that a release that fixes it passes)"`
	Gap         *Gap        `yaml:"gap" doc:"set when a step pins an upstream gap (a fact about a Kubernetes release, not a promise of the KEP): mark that step pinsGap: true; a cluster that closed the gap fails that step and passes gap.closed instead, reported as information"`
}

// Gap marks a case one of whose steps pins a gap of an upstream release:
// what a release does that the KEP, or its parent KEPs, would have it not
// do. That step says pinsGap: true. A cluster that still has the gap passes
// the steps; one that closed it fails the pinning step and must pass Closed
// instead of it and the steps after it. Either is reported as information
// ("gap present", "gap closed"); only a cluster that does neither fails, so
// a newer Kubernetes is never failed for being better. A failure of any
// other step is no sign of a closed gap, and fails the case.
type Gap struct {
	Present string `yaml:"present" doc:"the gap, in one sentence, as the pinning step pins it (with the release that has it)"`
	Closed  []Step `yaml:"closed" doc:"what a cluster that closed the gap must do instead; runs when the step marked pinsGap: true fails, in place of it and the steps after it, with the given objects and whatever the steps created"`
	Pos     Pos    `yaml:"-"`
}

// Requires states what a cluster must offer for a case to be meaningful.
type Requires struct {
	CapacityRequestsField string `yaml:"extendedResourceCapacityRequests" doc:"how the API server treats DeviceClassSpec.extendedResourceCapacityRequests: unknown (no KEP-6406), dropped (known, gate off) or kept"`
	ConsumableCapacity    string `yaml:"consumableCapacity" doc:"whether the API server keeps KEP-5075 fields: enabled or disabled"`
	// KEP-6406 depends on neither: a case that uses their fields does not
	// apply where they are off, rather than failing a conformant cluster.
	DeviceTaints         string `yaml:"deviceTaints" doc:"whether the API server keeps a device's taints (DRADeviceTaints): enabled or disabled"`
	PartitionableDevices string `yaml:"partitionableDevices" doc:"whether the API server keeps a slice's shared counters (DRAPartitionableDevices): enabled or disabled"`
	Restart              bool   `yaml:"restart" doc:"the provider must restart components; implied by a restart step"`
	TestDriver           bool   `yaml:"testDriver" doc:"nodes with a running kubelet where the draconform test driver (drivers/) publishes devices, so pods really start; an expectRunning step needs it"`
	DriverProfile        bool   `yaml:"driverProfile" doc:"nodes with a running kubelet where the driver of the run's driver profile (--driver-profile; default draconform's test driver) publishes devices"`
}

// Kubelet says whether the case's pods must really run: on nodes with a
// kubelet where the test driver, or the driver profile's driver, publishes
// devices.
func (r Requires) Kubelet() bool { return r.TestDriver || r.DriverProfile }

// Vars maps variable names to YAML values; a value that is a whole
// "${name}" scalar keeps its type when substituted.
type Vars map[string]yaml.Node

// ObjectUse instantiates a fixture, or an inline object, with variables and a patch.
type ObjectUse struct {
	Fixture string    `yaml:"fixture" doc:"name of a fixture under fixtures/"`
	Object  yaml.Node `yaml:"object" doc:"an inline manifest instead of a fixture"`
	Name    string    `yaml:"name" doc:"local name: sets the variable name and is how steps refer to the object (kind/name)"`
	Vars    Vars      `yaml:"vars" doc:"values for the fixture's params"`
	Patch   yaml.Node `yaml:"patch" doc:"merged over the object after substitution: maps merge, lists replace, null deletes"`
	Pos     Pos       `yaml:"-"`
}

// Fixture is a reusable object template with declared parameters.
type Fixture struct {
	APIVersion  string    `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind        string    `yaml:"kind" doc:"always Fixture"`
	Name        string    `yaml:"name" doc:"what uses write after fixture:"`
	Description string    `yaml:"description"`
	Params      Vars      `yaml:"params" doc:"parameters with their defaults; name is always one"`
	Object      yaml.Node `yaml:"object" doc:"the manifest, with ${var} references"`
	Pos         Pos       `yaml:"-"`
}

// CellSet lists the gate cells suites may name.
type CellSet struct {
	APIVersion string `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind       string `yaml:"kind" doc:"always Cells"`
	Cells      []Cell `yaml:"cells"`
	Pos        Pos    `yaml:"-"`
}

// Cell is one feature-gate state of the control plane.
type Cell struct {
	Name        string                     `yaml:"name" doc:"a DNS label; becomes the label cell:<name>"`
	Description string                     `yaml:"description"`
	Gates       map[string]map[string]bool `yaml:"gates" doc:"component (kube-apiserver, kube-scheduler, kube-controller-manager) to explicit gates; empty means the binaries' defaults"`
	// StartRefusal makes a control plane that refuses the gates an
	// outcome, not a failure: some gate combinations are meant to be
	// impossible, and refusing to start is one way to make them so.
	// Released makes a version-skew cell: these components run the
	// released Kubernetes binaries the implementation builds on, so they
	// predate the KEP, while the others run the implementation's.
	Released     []string `yaml:"released" doc:"components that run the released Kubernetes binaries the implementation builds on instead of its own (version skew: an upgraded API server beside a scheduler that predates the KEP)"`
	StartRefusal string   `yaml:"startRefusal" doc:"text of a start-up error that is an accepted outcome for this cell: its cases then pass, recording the refusal"`
	Pos          Pos      `yaml:"-"`
}

// Register is the interpretation register: every point where the KEP is
// ambiguous or says something v1.37.2 does not do, with the reading the
// suite enforces. Cases that rest on an entry name it in contested:.
type Register struct {
	APIVersion string          `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind       string          `yaml:"kind" doc:"always Register"`
	Entries    []RegisterEntry `yaml:"entries"`
	Pos        Pos             `yaml:"-"`
}

// RegisterEntry is one contested point.
type RegisterEntry struct {
	ID       string   `yaml:"id" doc:"R<n>, what cases write in contested:"`
	Title    string   `yaml:"title"`
	Section  string   `yaml:"section" doc:"the KEP section quoted"`
	Quote    string   `yaml:"quote" doc:"the KEP's words"`
	Observed string   `yaml:"observed" doc:"what v1.37.2 (or the prototype) really does"`
	Proof    []string `yaml:"proof" doc:"ids (suite/case) of the cases that show it on a real control plane"`
	Reading  string   `yaml:"reading" doc:"the reading the suite enforces, and why"`
	// Stance decides whether the cases resting on the entry can fail a
	// verdict: a reading the suite requires must block, or a broken
	// implementation certifies; only a reading the KEP leaves genuinely
	// open may merely inform, and the entry must say why it is open.
	Stance      string `yaml:"stance" doc:"enforced: the cases resting on this reading block their claims like any other case; open: the KEP leaves the point genuinely open, so they inform and never block (openBecause says why)"`
	OpenBecause string `yaml:"openBecause" doc:"with stance: open, why the reading is genuinely open: what other reading an implementation may conformantly take"`
	// EnforcedBy is what lets a reading block: the KEP's own sentence that
	// makes it a promise, not the suite's preference.
	EnforcedBy string `yaml:"enforcedBy" doc:"with stance: enforced, the KEP's sentence that makes the reading a promise (quoted as the KEP has it)"`
	// Wording is the one excuse for a blocking case to match the words of
	// a message: the fact it checks exists only as text.
	Wording string `yaml:"wording" doc:"why a blocking case resting on this entry matches the words of a message (rejected:, warning:, message:, lacks:): the fact it checks exists only as text, and which words name it"`
	Pos     Pos    `yaml:"-"`
}

// Stances of a RegisterEntry.
const (
	StanceEnforced = "enforced"
	StanceOpen     = "open"
)

// Open says whether cases resting on the entry inform only.
func (e *RegisterEntry) Open() bool { return e.Stance == StanceOpen }

// ClaimSet is a file of certification claims: what a run's outcomes must
// show for draconform to say an implementation is conformant.
type ClaimSet struct {
	APIVersion string  `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind       string  `yaml:"kind" doc:"always Claims"`
	Claims     []Claim `yaml:"claims"`
	Pos        Pos     `yaml:"-"`
}

// Claim is one certifiable statement and the cases it rests on: every one
// of them that applies to the cluster must pass, none may skip, and only
// cases resting on an open reading of the KEP (a register entry with
// stance: open) inform without blocking.
type Claim struct {
	Name        string   `yaml:"name" doc:"a DNS label; what verdict lines and certify's --claim name"`
	Title       string   `yaml:"title" doc:"the claim as a sentence, e.g. KEP-6406 conformant with its gates on"`
	Description string   `yaml:"description"`
	Cells       []string `yaml:"cells" doc:"the gate cells whose cases the claim rests on"`
	Suites      []string `yaml:"suites" doc:"the suites whose cases it rests on (default: every suite)"`
	Restart     string   `yaml:"restart" doc:"cases that restart a component: include (default), exclude or only"`
	Field       []string `yaml:"field" doc:"the states of extendedResourceCapacityRequests the probe must find in a cell for its cases to count (kept, dropped, unknown; default: any)"`
	// MinCases keeps a claim from standing on a handful of cases: a
	// cluster where fewer of its blocking cases apply has not shown it
	// (a kubeconfig cluster declared as one of several cells), and a
	// suite edit that leaves it fewer blocking cases fails lint.
	MinCases int `yaml:"minCases" doc:"the least number of blocking cases that must apply (and pass) for the claim to stand; lint fails when the suites give the claim fewer"`
	// MayNotApply makes the count exact: the suites must give the claim
	// minCases + mayNotApply blocking cases, so a case added, removed or
	// made to inform changes the claim only when someone says so here.
	MayNotApply int `yaml:"mayNotApply" doc:"how many of the claim's blocking cases may not apply on a cluster it still stands on (a provider that cannot swap binaries, a vendor's cluster); lint fails unless the suites give the claim exactly minCases + mayNotApply blocking cases"`
	Pos         Pos `yaml:"-"`
}

// Restart values of a Claim.
const (
	RestartInclude = "include"
	RestartExclude = "exclude"
	RestartOnly    = "only"
)

// Product describes what a certification bundle certifies: who makes it,
// the DRA driver and its image. certify reads it from --product and writes
// it, with the Kubernetes version it ran on, as the bundle's PRODUCT.yaml.
type Product struct {
	APIVersion  string `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind        string `yaml:"kind" doc:"always Product"`
	Vendor      string `yaml:"vendor" doc:"who makes the product"`
	Name        string `yaml:"name" doc:"the product, e.g. Example GPU DRA driver"`
	Version     string `yaml:"version" doc:"the product's version"`
	Website     string `yaml:"website" doc:"optional"`
	Description string `yaml:"description" doc:"optional"`
	Driver      string `yaml:"driver" doc:"the DRA driver name its ResourceSlices carry"`
	Image       string `yaml:"image" doc:"the driver's container image, with its tag or digest"`
	Contact     string `yaml:"contact" doc:"an e-mail address or URL for questions about the bundle"`
	// KubernetesVersion is filled in by certify from the cluster.
	KubernetesVersion string `yaml:"kubernetesVersion,omitempty" doc:"written by certify: the server version it ran on"`
	Pos               Pos    `yaml:"-"`
}

// DriverProfile describes a vendor's DRA driver to the driver-profile
// family of cases: which devices a share is taken from, how much one share
// takes, where the pods may run, and how to check what a running container
// got. draconform reads the driver's ResourceSlices and never writes them.
type DriverProfile struct {
	APIVersion string `yaml:"apiVersion" doc:"always draconform.dev/v1alpha1"`
	Kind       string `yaml:"kind" doc:"always DriverProfile"`
	Name       string `yaml:"name" doc:"a DNS label naming the profile in reports"`
	Driver     string `yaml:"driver" doc:"the DRA driver name its ResourceSlices and DeviceClass selectors use"`
	Selector   string `yaml:"selector" doc:"a CEL expression over device selecting its shareable devices, ANDed with device.driver == driver (default: every device of the driver)"`
	Capacity   string `yaml:"capacity" doc:"the capacity a share consumes, as the devices publish it (e.g. memory, shares); or give requests: for several"`
	Share      string `yaml:"share" doc:"the quantity of it one share takes (e.g. 10Gi, 1); two shares must fit one device"`
	// OverCapacity makes the case of a pod that fits no device.
	OverCapacity string `yaml:"overCapacity" doc:"a quantity of the capacity larger than any one device has (e.g. 1Ti)"`
	// Requests is the several-capacity form of Capacity and Share: a
	// capacity a share leaves out is consumed at the device's request
	// policy default, often the whole device, so a driver that publishes
	// several must have a share name each of them.
	Requests map[string]string `yaml:"requests" doc:"instead of capacity and share: what one share requests of each capacity, as extendedResourceCapacityRequests.requests (e.g. {memory: 40Gi, compute: \"50\"}); name every capacity a share must not take whole; two shares must fit one device"`
	// OverRequests is the several-capacity form of OverCapacity.
	OverRequests map[string]string `yaml:"overRequests" doc:"with requests: a request no one device can meet (e.g. {memory: 1Ti})"`
	NodeSelector map[string]string `yaml:"nodeSelector" doc:"node labels the pods must match (optional)"`
	Workload     ProfileWorkload   `yaml:"workload"`
	// Env are what the container must see of its share.
	Env map[string]string `yaml:"env" doc:"environment variables a running container must print in its log, name to value (<any>: set to anything); the workload prints its environment. <device> and <deviceNumber> in a name or a value stand for the device the pod was given and the number its name ends in (gpu-3: 3), since which device with room a pod gets is not the KEP's to say"`
	// Output checks what is inside the container beyond its environment,
	// as the workload's command prints it.
	Output []string `yaml:"output" doc:"text the container's log must contain besides env: what the workload's command printed of a file or a tool inside the container (e.g. the line of a device in nvidia-smi -L)"`
	Pos    Pos      `yaml:"-"`
}

// ShareRequests is what one share requests, whichever form gave it.
func (p *DriverProfile) ShareRequests() map[string]string {
	if len(p.Requests) > 0 {
		return p.Requests
	}
	return map[string]string{p.Capacity: p.Share}
}

// OverShareRequests is a request no one device can meet.
func (p *DriverProfile) OverShareRequests() map[string]string {
	if len(p.OverRequests) > 0 {
		return p.OverRequests
	}
	return map[string]string{p.Capacity: p.OverCapacity}
}

// ProfileWorkload is the container the family's pods run.
type ProfileWorkload struct {
	Image   string   `yaml:"image" doc:"an image the cluster can pull"`
	Command []string `yaml:"command" doc:"a command that prints the container's environment (NAME=value lines) and keeps running, e.g. [sh, -c, 'env; sleep 3600']"`
}

// ProfileVarNames are the variables a driver profile defines for every case
// (see the driver-profile suite).
var ProfileVarNames = []string{"profileDriver", "profileSelector", "profileRequests", "profileOverRequests",
	"profileNodeSelector", "profileImage", "profileCommand", "profileEnv", "profileOutput"}
