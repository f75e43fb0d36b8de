package loader_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/loader"
)

const cells = `apiVersion: draconform.dev/v1alpha1
kind: Cells
cells:
- name: defaults
  gates: {}
`

const podFixture = `apiVersion: draconform.dev/v1alpha1
kind: Fixture
name: pod
params:
  name: p1
  quantity: "1"
object:
  apiVersion: v1
  kind: Pod
  metadata:
    name: ${name}
  spec:
    containers:
    - name: main
      resources:
        limits: {"${domain}/gpu": "${quantity}"}
`

// suite builds a suite file whose cases start at line 6.
func suite(cases string) string {
	return "apiVersion: draconform.dev/v1alpha1\nkind: Suite\nname: s\ncells: [defaults]\ncases:\n" + cases
}

// malformedSpecs are suites that must fail with exactly these problems, at
// file:line, so that a user who mistypes one key is told where and what to
// write. FuzzLoadSuite starts from them too.
var malformedSpecs = []struct {
	name  string
	suite string
	want  []string
}{
	{
		name:  "unknown key with a suggestion",
		suite: suite("- id: a\n  title: t\n  stpes: []\n"),
		want: []string{
			`suites/s.yaml:8: unknown key "stpes" in case (did you mean steps?)`,
			`suites/s.yaml:6: case a has no steps`,
		},
	},
	{
		name:  "expectRunning where no pod can run",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectRunning: {pod: p1}\n"),
		want: []string{
			`suites/s.yaml:10: expectRunning needs requires: {testDriver: true} or {driverProfile: true}: pods only run where a kubelet and a driver are`,
		},
	},
	{
		name:  "type error",
		suite: suite("- id: a\n  title: t\n  steps:\n  - expectUnschedulable: {pod: p1, within: soon}\n"),
		want: []string{
			`suites/s.yaml:9: duration "soon": time: invalid duration "soon" (write e.g. 30s or 1m)`,
			`suites/s.yaml:9: pod/p1 is not an object of this case (at this point)`,
			`suites/s.yaml:9: expectUnschedulable needs message: without one, a pod pending for any reason at all would pass (e.g. message: "cannot allocate all claims", the scheduler's words for the reason the case is about, or reason: insufficient-devices, which any known wording of it meets)`,
		},
	},
	{
		name:  "unschedulable with message and reason, or an unknown reason",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectUnschedulable: {pod: p1, message: x, reason: insufficient-devices}\n  - expectUnschedulable: {pod: p1, reason: no-devices}\n"),
		want: []string{
			`suites/s.yaml:10: expectUnschedulable takes message: or reason:, not both (keep reason: for a meaning any release may word, message: for one wording)`,
			`suites/s.yaml:11: reason: "no-devices" is not allowed (one of insufficient-devices, skew-guard)`,
		},
	},
	{
		name:  "expectClaim absent: a field the API type lacks, or one the step has a key for",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectClaim: {pod: p1, requests: [{name: r, absent: [tolerationz, capacity]}], results: [{request: r, absent: [shareID]}]}\n"),
		want: []string{
			`suites/s.yaml:10: requests: absent: "tolerationz" is no field of the API type, so it would be absent from every claim (one of: adminAccess, allocationMode, capacity, count, derivedAttributes, deviceClassName, selectors, tolerations)`,
			`suites/s.yaml:10: requests: absent: "capacity" has its own key in expectClaim: say it there (null, or shareID: unset)`,
			`suites/s.yaml:10: results: absent: "shareID" has its own key in expectClaim: say it there (null, or shareID: unset)`,
		},
	},
	{
		name:  "unschedulable without a message",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectUnschedulable: {pod: p1, for: 2s}\n  - expectUnschedulable: {pod: p1, message: \" \"}\n"),
		want: []string{
			`suites/s.yaml:10: expectUnschedulable needs message: without one, a pod pending for any reason at all would pass (e.g. message: "cannot allocate all claims", the scheduler's words for the reason the case is about, or reason: insufficient-devices, which any known wording of it meets)`,
			`suites/s.yaml:11: expectUnschedulable needs message: without one, a pod pending for any reason at all would pass (e.g. message: "cannot allocate all claims", the scheduler's words for the reason the case is about, or reason: insufficient-devices, which any known wording of it meets)`,
		},
	},
	{
		name:  "unknown fixture",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pood, name: p1}\n"),
		want:  []string{`suites/s.yaml:9: unknown fixture "pood" (did you mean pod?)`},
	},
	{
		name:  "unknown fixture param",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1, vars: {quantty: \"2\"}}\n"),
		want:  []string{`suites/s.yaml:9: fixture pod has no param "quantty" (did you mean quantity?)`},
	},
	{
		name:  "reference to an object the case does not have",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectScheduled: {pod: p2}\n"),
		want:  []string{`suites/s.yaml:10: pod/p2 is not an object of this case (at this point) (did you mean pod/p1?)`},
	},
	{
		name:  "step with two actions",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n    expectScheduled: {pod: p1}\n"),
		want:  []string{`suites/s.yaml:9: a step needs exactly one action, found 2 (one of create, update, apply, delete, restart, outage, sleep, schedulerSeesClasses, assert, expectScheduled, expectSomeScheduled, expectUnschedulable, expectClaim, expectNoClaim, expectSameDevice, expectDistinctDevices, expectEvent, expectNoHotLoop, expectSchedulerMetric, expectRunning)`},
	},
	{
		name:  "sleep without a reason, too long",
		suite: suite("- id: a\n  title: t\n  steps:\n  - sleep: {for: 30s}\n"),
		want: []string{
			`suites/s.yaml:9: sleep: for: must be more than 0 and at most 10s (expectations poll; a sleep is only for what the clock orders) (e.g. for: 1100ms)`,
			`suites/s.yaml:9: sleep needs why: (why: <what the wait is for>)`,
		},
	},
	{
		name:  "hot-loop window without a bound",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectNoHotLoop: {pod: p1, over: 5m}\n"),
		want: []string{
			`suites/s.yaml:10: expectNoHotLoop: over: must be at most 2m0s (e.g. over: 20s)`,
			`suites/s.yaml:10: expectNoHotLoop needs maxAttempts: of at least 1 (e.g. maxAttempts: 10)`,
		},
	},
	{
		name:  "no claim within, with for and ever",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectNoClaim: {pod: p1, within: 30s, for: 5s}\n  - expectNoClaim: {pod: p1, within: 30s, ever: true}\n  - expectNoClaim: {pod: p1, within: 30s}\n"),
		want: []string{
			`suites/s.yaml:10: expectNoClaim: within: lets a claim come and go, so it cannot go with for: or ever:, which fail on any (keep within: for a pod the scheduler retries, or for:/ever: for one that must never get a claim)`,
			`suites/s.yaml:11: expectNoClaim: within: lets a claim come and go, so it cannot go with for: or ever:, which fail on any (keep within: for a pod the scheduler retries, or for:/ever: for one that must never get a claim)`,
		},
	},
	{
		name:  "scheduling event message with no barrier before the pod",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - schedulerSeesClasses: {}\n  - expectEvent: {ref: pod/p1, reason: FailedScheduling, message: m}\n"),
		want: []string{
			`suites/s.yaml:11: expectEvent: kube-scheduler keeps the message of a pod's first FailedScheduling (its event series is keyed without it), so the case must make sure the scheduler has seen its objects before pod/p1 is created (add - schedulerSeesClasses: {} before the pod's create)`,
		},
	},
	{
		name:  "undefined variable",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectUnschedulable: {pod: p1, message: \"${domian}/gpu\"}\n"),
		want:  []string{`suites/s.yaml:10: undefined variable ${domian} (did you mean domain?)`},
	},
	{
		name:  "unknown cell and duplicate case id",
		suite: suite("- id: a\n  title: t\n  cells: [default]\n  steps:\n  - create: {fixture: pod, name: p1}\n- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n"),
		want: []string{
			`suites/s.yaml:8: unknown cell "default" (did you mean defaults?)`,
			`suites/s.yaml:11: case id "a" is already used at line 6`,
		},
	},
	{
		name:  "contradicting write outcome and bad enum",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1, fieldValidation: strict, expect: {rejected: x, warning: y}}\n"),
		want: []string{
			`suites/s.yaml:9: fieldValidation: "strict" is not allowed (one of Strict, Warn, Ignore)`,
			`suites/s.yaml:9: expect: needs exactly one outcome, found 2 (invalid, refused, rejected, warning or noWarning)`,
		},
	},
	{
		name:  "unknown KEP section and unused variable",
		suite: suite("- id: a\n  title: t\n  kep: [Risks]\n  vars: {unused: x}\n  steps:\n  - create: {fixture: pod, name: p1}\n"),
		want: []string{
			`suites/s.yaml:6: unknown KEP section "Risks"`,
			`suites/s.yaml:6: case a: variable "unused" is not used (remove it, or declare it as a param of the fixture meant to take it)`,
		},
	},
	{
		name:  "wrong apiVersion",
		suite: "apiVersion: v1\nkind: Suite\nname: s\n",
		want:  []string{`suites/s.yaml:1: apiVersion is "v1" (the first lines of every document are apiVersion: draconform.dev/v1alpha1 and kind)`},
	},
	{
		name: "gap without its pinned step, pinsGap in gap.closed",
		suite: suite("- id: a\n  title: t\n  knownIssue: k\n  steps:\n  - create: {fixture: pod, name: p1}\n  - expectScheduled: {pod: p1}\n" +
			"  gap:\n    present: p\n    closed:\n    - expectScheduled: {pod: p1}\n      pinsGap: true\n"),
		want: []string{
			`suites/s.yaml:13: case a: gap: names no step that pins it, so no failure could run gap.closed (mark the step that fails where the gap is closed with pinsGap: true)`,
			`suites/s.yaml:15: case a: pinsGap: true in gap.closed, which runs after the gap is found closed (mark the step of steps: that pins the gap)`,
		},
	},
	{
		name: "two pinned steps, and one without a gap",
		suite: suite("- id: a\n  title: t\n  knownIssue: k\n  steps:\n  - create: {fixture: pod, name: p1}\n    pinsGap: true\n  - expectScheduled: {pod: p1}\n    pinsGap: true\n" +
			"  gap:\n    present: p\n    closed:\n    - expectScheduled: {pod: p1}\n" +
			"- id: b\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n    pinsGap: true\n"),
		want: []string{
			`suites/s.yaml:12: case a: a second step pins the gap; exactly one may (keep pinsGap: true on one step (the first is at line 10))`,
			`suites/s.yaml:21: case b: pinsGap: true, but the case has no gap: (add gap: (present:, closed:) to the case, or drop pinsGap)`,
		},
	},
	{
		name:  "unknown gate in a restart",
		suite: suite("- id: a\n  title: t\n  steps:\n  - restart: {component: kube-scheduler, gates: {DRAConsumableCapacty: false}}\n"),
		want:  []string{`suites/s.yaml:9: unknown feature gate "DRAConsumableCapacty" (did you mean DRAConsumableCapacity?)`},
	},
	{
		name:  "a binary a restart cannot run",
		suite: suite("- id: a\n  title: t\n  steps:\n  - restart: {component: kube-apiserver, binary: releasd, gates: {}}\n"),
		want:  []string{`suites/s.yaml:9: restart: binary is "releasd"; it takes released or implementation (did you mean released?)`},
	},
	// Where each kind of problem is reported (issue 41): at the line of
	// the bad item of a list, not its document's or case's, and a type
	// error names the key it is under.
	{
		name:  "unknown cell of a suite, at its own line",
		suite: "apiVersion: draconform.dev/v1alpha1\nkind: Suite\nname: s\ncells:\n- defaults\n- capacity-onn\ncases:\n- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n",
		want:  []string{`suites/s.yaml:6: unknown cell "capacity-onn"`},
	},
	{
		name:  "unknown cell of a case, at its own line",
		suite: suite("- id: a\n  title: t\n  cells:\n  - defaults\n  - defualts\n  steps:\n  - create: {fixture: pod, name: p1}\n"),
		want:  []string{`suites/s.yaml:10: unknown cell "defualts" (did you mean defaults?)`},
	},
	{
		name:  "a list where a key takes a map",
		suite: suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1, expect: [rejected]}\n"),
		want:  []string{`suites/s.yaml:9: expected a map for "expect", found a list`, `suites/s.yaml:9: expect: needs exactly one outcome, found 0 (invalid, refused, rejected, warning or noWarning)`},
	},
	{
		name:  "a list where a list's item is a map",
		suite: suite("- id: a\n  title: t\n  steps:\n  - [create]\n"),
		want: []string{`suites/s.yaml:9: expected a map in an item of "steps", found a list`,
			`suites/s.yaml:9: a step needs exactly one action, found 0 (one of create, update, apply, delete, restart, outage, sleep, schedulerSeesClasses, assert, expectScheduled, expectSomeScheduled, expectUnschedulable, expectClaim, expectNoClaim, expectSameDevice, expectDistinctDevices, expectEvent, expectNoHotLoop, expectSchedulerMetric, expectRunning)`},
	},
	{
		name:  "a string where a key takes a list",
		suite: suite("- id: a\n  title: t\n  cells: defaults\n  steps:\n  - create: {fixture: pod, name: p1}\n"),
		want:  []string{`suites/s.yaml:8: expected a list for "cells", found str "defaults" (write a YAML list)`},
	},
	{
		name:  "a list where a key takes a string",
		suite: suite("- id: a\n  title: [t]\n  steps:\n  - create: {fixture: pod, name: p1}\n"),
		want:  []string{`suites/s.yaml:7: expected a string for "title", found a list`, `suites/s.yaml:6: case a has no title (say in one sentence what must hold)`},
	},
}

func TestMalformedSpecs(t *testing.T) {
	for _, tt := range malformedSpecs {
		t.Run(tt.name, func(t *testing.T) {
			sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: []byte(tt.suite)}}
			ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
			_, err := loader.Load(sfs, ffs, steps.Kinds())
			if err == nil {
				t.Fatalf("loaded without error; want:\n%s", strings.Join(tt.want, "\n"))
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(sorted(tt.want), "\n") {
				t.Errorf("problems differ\n got:\n%s\nwant:\n%s", err, strings.Join(sorted(tt.want), "\n"))
			}
		})
	}
}

// sorted orders problems as Problems.Error does: by file, then line.
func sorted(lines []string) []string {
	out := append([]string(nil), lines...)
	lineOf := func(s string) int {
		parts := strings.SplitN(s, ":", 3)
		n := 0
		for _, r := range parts[1] {
			n = n*10 + int(r-'0')
		}
		return n
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && lineOf(out[j]) < lineOf(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// badFixture has a param default and an object that use undefined variables.
const badFixture = `apiVersion: draconform.dev/v1alpha1
kind: Fixture
name: f
params:
  size: ${other}
object:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: ${nme}
`

func TestFixtureProblems(t *testing.T) {
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: []byte(suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: f, name: x}\n"))}}
	_, err := loader.Load(sfs, fstest.MapFS{"f.yaml": {Data: []byte(badFixture)}}, steps.Kinds())
	want := []string{
		`fixtures/f.yaml:5: fixture f: param size refers to ${other} (a default may use only prefix, domain, driver, namespace, run)`,
		`fixtures/f.yaml:10: fixture f: undefined variable ${nme} (did you mean name? declare it under params:)`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("got:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// Problems name the folder as the caller gave it (draconform lint --suites
// ../mine), so that file:line opens in an editor; Load keeps suites/ and
// fixtures/ for the built-in folders.
func TestProblemsNameTheFolderAsGiven(t *testing.T) {
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: []byte(suite("- id: a\n  title: t\n  cells: [defualts]\n  steps:\n  - create: {fixture: pod, name: p1}\n"))}}
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture + "bad: 1\n")}}
	_, err := loader.LoadNamed(sfs, "../mine", ffs, "/srv/fixtures", steps.Kinds())
	want := []string{
		`../mine/s.yaml:8: unknown cell "defualts" (did you mean defaults?)`,
		`/srv/fixtures/pod.yaml:17: unknown key "bad" in fixture`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "suites/") {
		t.Errorf("a problem names suites/ for a folder given as ../mine:\n%v", err)
	}
}
