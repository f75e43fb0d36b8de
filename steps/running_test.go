package steps_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/steps/stepstest"
	"github.com/draconform/draconform/tools/lang/spec"
)

const runningStatus = `status:
  phase: Running
  containerStatuses:
  - {name: main, state: {running: {startedAt: "2026-11-30T00:00:00Z"}}}
`

const printed = `DRACONFORM_0_CONSUMED_SHARES=1
DRACONFORM_0_DEVICE=shared-0
DRACONFORM_0_REQUEST=container-0-request-0
DRACONFORM_0_SHARE_ID=6f1c
DRACONFORM_CLAIM=ns/p1-extended-resources-x
`

// logs serves container logs from a map that a test may change while the
// step waits, as a container that prints after it starts would.
type logs struct {
	mu   sync.Mutex
	text map[string]string // pod/container -> log
	err  error
}

func (l *logs) set(key, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text[key] = text
}

func (l *logs) read(_ context.Context, ns, pod, container string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ns != stepstest.Namespace {
		return "", fmt.Errorf("log read in namespace %s", ns)
	}
	if l.err != nil {
		return "", l.err
	}
	return l.text[pod+"/"+container], nil
}

// wantShare is what the test driver prints for a pod given one share.
var wantShare = map[string]string{"DRACONFORM_0_DEVICE": "shared-0", "DRACONFORM_0_SHARE_ID": "<any>", "DRACONFORM_0_CONSUMED_SHARES": "1"}

type expectRunningCase struct {
	name     string
	status   string
	node     string
	log      string
	logLater string // printed 100ms into the step
	logErr   error
	env      map[string]string
	output   []string
	fails    []string
	measured string // what the outcome records of a check that passed
}

// expectRunningCases are pod p1 in each state, with the log its main
// container printed and what the step asks of it.
var expectRunningCases = []expectRunningCase{
	{name: "running with its share", node: node1, status: runningStatus, log: printed, env: wantShare},
	{name: "running, no env asked", node: node1, status: runningStatus},
	{name: "prints after a while", node: node1, status: runningStatus, logLater: printed, env: wantShare},
	{name: "whole device instead of a share", node: node1, status: runningStatus,
		log: "DRACONFORM_0_DEVICE=shared-0\nDRACONFORM_0_SHARE_ID=\nDRACONFORM_0_CONSUMED_SHARES=4\n", env: wantShare,
		fails: []string{"the container got DRACONFORM_0_CONSUMED_SHARES=\"4\", want \"1\"", "it printed: DRACONFORM_0_CONSUMED_SHARES=4"}},
	{name: "empty shareID is not set", node: node1, status: runningStatus,
		log: "DRACONFORM_0_DEVICE=shared-0\nDRACONFORM_0_SHARE_ID=\nDRACONFORM_0_CONSUMED_SHARES=1\n", env: wantShare,
		fails: []string{"did not print DRACONFORM_0_SHARE_ID"}},
	{name: "nothing printed", node: node1, status: runningStatus, env: wantShare,
		fails: []string{"did not print DRACONFORM_0_CONSUMED_SHARES, DRACONFORM_0_DEVICE, DRACONFORM_0_SHARE_ID (it printed: nothing)"}},
	{name: "log unreadable", node: node1, status: runningStatus, logErr: fmt.Errorf("kubelet unreachable"), env: wantShare,
		fails: []string{"reading the log of pod p1, container main: kubelet unreachable"}},
	{name: "not bound", status: unschedulableStatus,
		fails: []string{"pod p1 must run", "pod p1 is not bound", "cannot allocate all claims"}},
	{name: "container cannot be created", node: node1, status: `status:
  phase: Pending
  containerStatuses:
  - {name: main, state: {waiting: {reason: CreateContainerError, message: "CDI device injection failed"}}}
`, fails: []string{"container main is waiting: CreateContainerError CDI device injection failed"}},
	{name: "bound, not started", node: node1, status: "status: {phase: Pending}\n",
		fails: []string{"pod p1 is Pending on node " + node1 + "; container main has not started"}},
	{name: "workload exited", node: node1, status: `status:
  phase: Running
  containerStatuses:
  - {name: main, state: {terminated: {reason: Error, exitCode: 2}}}
`, fails: []string{"container main terminated: Error (exit 2)"}},
	{name: "pod failed", node: node1, status: "status: {phase: Failed}\n", fails: []string{"pod p1 ended (phase Failed)"}},
	// Another driver names its variables its own way: the example
	// driver's CDI spec gives GPU_DEVICE_0_MEMORY, and a shell's env
	// prints PATH and the like around it.
	{name: "another driver's variables", node: node1, status: runningStatus,
		log:      "PATH=/usr/bin\nDRA_RESOURCE_DRIVER_NAME=gpu.example.com\nGPU_DEVICE_0=gpu-0\nGPU_DEVICE_0_MEMORY=40Gi\nHOSTNAME=p1\n",
		env:      map[string]string{"DRA_RESOURCE_DRIVER_NAME": "gpu.example.com", "GPU_DEVICE_0": "<any>", "GPU_DEVICE_0_MEMORY": "40Gi"},
		measured: "pod p1, container main printed DRA_RESOURCE_DRIVER_NAME=gpu.example.com GPU_DEVICE_0=gpu-0 GPU_DEVICE_0_MEMORY=40Gi"},
	{name: "another driver's variable, wrong", node: node1, status: runningStatus,
		log: "GPU_DEVICE_0=gpu-0\nGPU_DEVICE_0_MEMORY=80Gi\n", env: map[string]string{"GPU_DEVICE_0_MEMORY": "40Gi"},
		fails: []string{`the container got GPU_DEVICE_0_MEMORY="80Gi", want "40Gi"`}},
	// Not variables: a log line with '=' in it, a value's second line;
	// printed twice, the last one is the running container's.
	{name: "lines that are not variables", node: node1, status: runningStatus,
		log:   "I1205 msg=hello world\nNVIDIA_VISIBLE_DEVICES=0\n  continued=x\nNVIDIA_VISIBLE_DEVICES=1\n",
		env:   map[string]string{"NVIDIA_VISIBLE_DEVICES": "1", "msg": "<any>", "continued": "<any>"},
		fails: []string{"did not print continued, msg"}},
	// What a command printed of a file or a tool inside the container.
	{name: "output printed", node: node1, status: runningStatus, log: "GPU 0: Example GPU (UUID: GPU-1)\n" + printed,
		env: wantShare, output: []string{"GPU 0: Example GPU"},
		measured: "pod p1, container main printed DRACONFORM_0_CONSUMED_SHARES=1 DRACONFORM_0_DEVICE=shared-0 DRACONFORM_0_SHARE_ID=6f1c and the 1 output lines checked"},
	{name: "output missing", node: node1, status: runningStatus, log: printed, env: wantShare, output: []string{"GPU 0:"},
		fails: []string{`the container did not print "GPU 0:" (its log: DRACONFORM_0_CONSUMED_SHARES=1 | `}},
}

func TestExpectRunning(t *testing.T) {
	for _, tt := range expectRunningCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkExpectRunning(t, tt)
		})
	}
}

func checkExpectRunning(t *testing.T, tt expectRunningCase) {
	f := stepstest.New(t)
	l := &logs{text: map[string]string{}, err: tt.logErr}
	f.Env.Clients.Logs = l.read
	name := f.SeedYAML("p1", podYAML("p1", tt.node, tt.status)).Object.GetName()
	l.set(name+"/main", tt.log)
	if tt.logLater != "" {
		f.Later(100*time.Millisecond, func() { l.set(name+"/main", tt.logLater) })
	}
	err := run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Env: tt.env, Output: tt.output, Within: spec.Duration(short + 2*time.Second)}})
	check(t, err, tt.fails)
	if tt.measured != "" && !slices.Contains(f.Env.Measurements(), tt.measured) {
		t.Errorf("measurements %q, want %q", f.Env.Measurements(), tt.measured)
	}
}

// A sidecar's status is among the init containers': it runs beside the
// main container, and its own log is read, not the main container's.
func TestExpectRunningSidecar(t *testing.T) {
	const status = `status:
  phase: Running
  initContainerStatuses:
  - {name: sidecar, state: {running: {}}}
  containerStatuses:
  - {name: main, state: {running: {}}}
`
	f := stepstest.New(t)
	l := &logs{text: map[string]string{}}
	f.Env.Clients.Logs = l.read
	name := f.SeedYAML("p1", podYAML("p1", node1, status)).Object.GetName()
	l.set(name+"/main", "DRACONFORM_0_REQUEST=container-1-request-0\n")
	l.set(name+"/sidecar", "DRACONFORM_0_REQUEST=container-0-request-0\n")
	want := func(container, request string) error {
		return run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Container: container,
			Env: map[string]string{"DRACONFORM_0_REQUEST": request}, Within: spec.Duration(short)}})
	}
	mustPass(t, want("sidecar", "container-0-request-0"))
	mustPass(t, want("main", "container-1-request-0"))
	mustFail(t, want("sidecar", "container-1-request-0"), `the container got DRACONFORM_0_REQUEST="container-0-request-0", want "container-1-request-0"`)
}

// <unset> says a container must not have a variable: another container's
// share, say.
func TestExpectRunningUnset(t *testing.T) {
	f := stepstest.New(t)
	l := &logs{text: map[string]string{}}
	f.Env.Clients.Logs = l.read
	name := f.SeedYAML("p1", podYAML("p1", node1, runningStatus)).Object.GetName()
	l.set(name+"/main", "DRACONFORM_1_REQUEST=container-1-request-0\n")
	want := func(env map[string]string) error {
		return run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Env: env, Within: spec.Duration(short)}})
	}
	mustPass(t, want(map[string]string{"DRACONFORM_0_REQUEST": "<unset>", "DRACONFORM_1_REQUEST": "container-1-request-0"}))
	if got := f.Env.Measurements(); !slices.Contains(got, "pod p1, container main printed DRACONFORM_1_REQUEST=container-1-request-0 no DRACONFORM_0_REQUEST") {
		t.Errorf("measured %q", got)
	}
	mustFail(t, want(map[string]string{"DRACONFORM_1_REQUEST": "<unset>"}), `DRACONFORM_1_REQUEST="container-1-request-0", want it unset`)
}

// A driver names its variables by the device; the KEP promises some device
// with room, so <deviceNumber> and <device> are filled from the pod's own
// allocation: the variables of gpu-3 are checked on a pod given gpu-3, and
// a container that prints another device's fails.
func TestExpectRunningNamesTheAllocatedDevice(t *testing.T) {
	want := map[string]string{"GPU_DEVICE_<deviceNumber>_MEMORY": "40Gi", "DEVICE": "<device>"}
	for _, tt := range []struct {
		name, log string
		allocs    []alloc
		fails     []string
	}{
		{name: "the device it was given", allocs: []alloc{{"pool-a", "gpu-3", "s1"}}, log: "GPU_DEVICE_3_MEMORY=40Gi\nDEVICE=gpu-3\n"},
		{name: "another device's variables", allocs: []alloc{{"pool-a", "gpu-3", "s1"}}, log: "GPU_DEVICE_0_MEMORY=40Gi\nDEVICE=gpu-0\n",
			fails: []string{`want "gpu-3"`}},
		{name: "two devices", allocs: []alloc{{"pool-a", "gpu-0", "s1"}, {"pool-a", "gpu-1", "s2"}}, log: "",
			fails: []string{"the container has 2 devices", "not one"}},
		{name: "no number", allocs: []alloc{{"pool-a", "gpu", "s1"}}, log: "",
			fails: []string{"device gpu does not end in a number"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			l := &logs{text: map[string]string{}}
			f.Env.Clients.Logs = l.read
			devicePod(t, f, "p1", "n1", tt.allocs...)
			f.Modify(mustLookup(t, f, "pod/p1"), func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "Running", "status", "phase")
				_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "main", "state": map[string]any{"running": map[string]any{}}}}, "status", "containerStatuses")
			})
			name := mustLookup(t, f, "pod/p1").Object.GetName()
			l.set(name+"/main", tt.log)
			err := run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Env: want, Within: spec.Duration(short)}})
			check(t, err, tt.fails)
		})
	}
}

// Two containers of one pod each get the share of their own request, which
// may be on another device than the other's: each container's variables
// are those of its own device, as the pod's status maps them.
func TestExpectRunningNamesTheContainersOwnDevice(t *testing.T) {
	for _, tt := range []struct {
		name, log string
		fails     []string
	}{
		{name: "its own device", log: "DEVICE=gpu-1\nX_1=gpu-1\n"},
		{name: "the other container's device", log: "DEVICE=gpu-0\nX_1=gpu-1\n", fails: []string{`want "gpu-1"`}},
		{name: "numbered by the other container's result", log: "DEVICE=gpu-1\nX_0=gpu-1\n", fails: []string{"X_1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stepstest.New(t)
			l := &logs{text: map[string]string{}}
			f.Env.Clients.Logs = l.read
			f.SeedYAML("p1", `apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  nodeName: n1
  containers: [{name: main, image: pause}, {name: second, image: pause}]
status:
  phase: Running
  containerStatuses: [{name: main, state: {running: {}}}, {name: second, state: {running: {}}}]
  extendedResourceClaimStatus:
    resourceClaimName: p1-claim
    requestMappings:
    - {containerName: main, resourceName: x, requestName: container-0-request-0}
    - {containerName: second, resourceName: x, requestName: container-1-request-0}
`)
			f.AddYAML(fmt.Sprintf(`apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: p1-claim}
status:
  allocation:
    devices:
      results:
      - {request: container-0-request-0, driver: %[1]s, pool: pool-a, device: gpu-0, shareID: s1}
      - {request: container-1-request-0, driver: %[1]s, pool: pool-a, device: gpu-1, shareID: s2}
`, stepstest.Driver))
			name := mustLookup(t, f, "pod/p1").Object.GetName()
			l.set(name+"/second", tt.log)
			err := run(t, f, &steps.ExpectRunning{Spec: &spec.ExpectRunning{Pod: "p1", Container: "second", Env: map[string]string{"DEVICE": "<device>", "X_<result>": "<device>"}, Within: spec.Duration(short)}})
			check(t, err, tt.fails)
		})
	}
}
