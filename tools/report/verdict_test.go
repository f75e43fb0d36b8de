package report

import (
	"strings"
	"testing"
)

func TestVerdicts(t *testing.T) {
	claim := Claim{Name: "gates-on", Title: "KEP-6406 conformant with its gates on", Field: []string{"kept"}, Cases: []ClaimCase{
		{ID: "s/a@on", Cell: "on"}, {ID: "s/b@on", Cell: "on"}, {ID: "s/contested@on", Cell: "on", Informing: true},
	}}
	pass := func(id string) Outcome { return Outcome{ID: id, Target: "impl", State: Passed} }
	kept := CellStates{"impl/on": {Field: "kept"}}
	tests := []struct {
		name     string
		outcomes []Outcome
		facts    CellStates
		complete bool
		want     VerdictState
		says     []string
	}{
		{"all pass", []Outcome{pass("s/a@on"), pass("s/b@on"), pass("s/contested@on")}, kept, true, Conformant, []string{"all 2 required cases passed"}},
		{"gap outcomes pass", []Outcome{pass("s/a@on"), {ID: "s/b@on", Target: "impl", State: Passed, Gap: "closed"}}, kept, true, Conformant, nil},
		{"a failure", []Outcome{pass("s/a@on"), {ID: "s/b@on", Target: "impl", State: Failed}}, kept, true, NotConformant, []string{"1 of 2"}},
		{"a skip for a lack the cluster could remedy", []Outcome{pass("s/a@on"), {ID: "s/b@on", Target: "impl", State: Skipped, Cause: "needs nodes with the test driver"}}, kept, true, NotConformant, []string{"1 of 2"}},
		{"informing failure does not block", []Outcome{pass("s/a@on"), pass("s/b@on"), {ID: "s/contested@on", Target: "impl", State: Failed}}, kept, true, Conformant, []string{"1 informing"}},
		{"cells it cannot run", []Outcome{{ID: "s/a@on", Target: "impl", State: Skipped, Cause: CauseCellUnsupport, Inapplicable: true}, {ID: "s/b@on", Target: "impl", State: Skipped, Cause: CauseCellUnsupport, Inapplicable: true}}, CellStates{}, true, NotApplicable, []string{"the provider cannot run this cell"}},
		{"field in another state", []Outcome{pass("s/a@on"), pass("s/b@on")}, CellStates{"impl/on": {Field: "dropped"}}, true, NotApplicable, []string{"the field is dropped in cell on, the claim needs kept"}},
		{"narrowed run", []Outcome{pass("s/a@on"), pass("s/b@on")}, kept, false, NotApplicable, []string{"narrowed"}},
		// An interrupted run, or a cell process that died, leaves cases
		// without an outcome: the claim has not been shown.
		{"a case with no outcome", []Outcome{pass("s/a@on"), pass("s/contested@on")}, kept, true, NotConformant, []string{"1 of 2"}},
		// A cell whose API server refused the probe, or did not start, has
		// no field state: its failures still block.
		{"a cell that never reached the probe", []Outcome{pass("s/a@on"), {ID: "s/b@on", Target: "impl", State: Failed, Cause: CauseProbe}}, CellStates{}, true, NotConformant, []string{"1 of 1"}},
		// Declared capacity-on, found dropped: broken, not "another state".
		{"a contradicted cell", []Outcome{{ID: "s/a@on", Target: "impl", State: Passed}, {ID: "s/b@on", Target: "impl", State: Failed, Cause: CauseContradicted}},
			CellStates{"impl/on": {Field: "dropped", Contradicted: "kube-apiserver runs with DRAExtendedResourceCapacity=true, so ... found it dropped"}}, true, NotConformant,
			[]string{"cell on is not in the state its gates promise: kube-apiserver runs with DRAExtendedResourceCapacity=true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := Verdicts([]Claim{claim}, tt.outcomes, tt.facts, tt.complete)
			if len(vs) != 1 {
				t.Fatalf("%d verdicts, want 1", len(vs))
			}
			v := vs[0]
			if v.State != tt.want || v.Target != "impl" || v.Claim != "gates-on" {
				t.Errorf("verdict %+v, want %s", v, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(v.Reason, s) {
					t.Errorf("reason %q does not say %q", v.Reason, s)
				}
			}
			if tt.want == NotConformant && (len(v.Blocking) != 1 || !strings.HasPrefix(v.Blocking[0], "s/b@on")) {
				t.Errorf("blocking %v, want s/b@on", v.Blocking)
			}
		})
	}
}

// A cluster that keeps the field, run as the defaults cell behind a
// kubeconfig, is told which --as-cell runs the KEP's cases.
func TestVerdictSuggestsTheCellForAClusterThatKeepsTheField(t *testing.T) {
	absent := Claim{Name: "absent", Field: []string{"dropped", "unknown"}, Cases: []ClaimCase{{ID: "s/x@defaults", Cell: "defaults"}}}
	vs := Verdicts([]Claim{absent}, []Outcome{{ID: "s/x@defaults", Target: "kubeconfig", State: Passed}}, CellStates{"kubeconfig/defaults": {Field: "kept"}}, true)
	if vs[0].State != NotApplicable || !strings.Contains(vs[0].Reason, "--as-cell capacity-on") {
		t.Errorf("verdict %+v", vs[0])
	}
	if lines := VerdictLines(vs); !strings.Contains(lines, "NOT APPLICABLE  absent on kubeconfig") {
		t.Errorf("verdict lines %q", lines)
	}
}

// A claim does not stand on fewer blocking cases than its minimum: a
// cluster declared as one of several cells has not shown it. A failure
// still makes it not conformant.
func TestVerdictNeedsTheClaimsMinimumOfCases(t *testing.T) {
	claim := Claim{Name: "partial", MinCases: 3, Cases: []ClaimCase{
		{ID: "s/a@x", Cell: "x"}, {ID: "s/b@y", Cell: "y"}, {ID: "s/c@z", Cell: "z"},
	}}
	unsupported := func(id string) Outcome {
		return Outcome{ID: id, Target: "impl", State: Skipped, Cause: CauseCellUnsupport, Inapplicable: true}
	}
	vs := Verdicts([]Claim{claim}, []Outcome{{ID: "s/a@x", Target: "impl", State: Passed}, unsupported("s/b@y"), unsupported("s/c@z")}, CellStates{}, true)
	if vs[0].State != NotApplicable || !strings.Contains(vs[0].Reason, "only 1 of its blocking cases apply here, and it stands on no fewer than 3") {
		t.Errorf("one case of three applied: %+v", vs[0])
	}
	vs = Verdicts([]Claim{claim}, []Outcome{{ID: "s/a@x", Target: "impl", State: Failed}, unsupported("s/b@y"), unsupported("s/c@z")}, CellStates{}, true)
	if vs[0].State != NotConformant {
		t.Errorf("one case of three applied and failed: %+v", vs[0])
	}
	vs = Verdicts([]Claim{claim}, []Outcome{{ID: "s/a@x", Target: "impl", State: Passed}, {ID: "s/b@y", Target: "impl", State: Passed}, {ID: "s/c@z", Target: "impl", State: Passed}}, CellStates{}, true)
	if vs[0].State != Conformant {
		t.Errorf("all three passed: %+v", vs[0])
	}
}
