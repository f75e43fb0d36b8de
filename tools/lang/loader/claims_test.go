package loader_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/lang/loader"
)

// badClaims name what does not exist, and one claim twice.
const badClaims = `apiVersion: draconform.dev/v1alpha1
kind: Claims
claims:
- name: ok
  title: a claim
  cells: [defaults]
  minCases: 1
- name: Bad_Name
  title: ""
  cells: [defualts]
  suites: [nosuch]
  restart: sometimes
  field: [kpet]
- name: ok
  title: again
  cells: [defaults]
  minCases: 1
`

// A claim that names what does not exist is refused at its line.
func TestClaimProblems(t *testing.T) {
	sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "claims.yaml": {Data: []byte(badClaims)},
		"s.yaml": {Data: []byte(suite("- id: a\n  title: t\n  steps:\n  - create: {fixture: pod, name: p1}\n"))}}
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
	_, err := loader.Load(sfs, ffs, steps.Kinds())
	if err == nil {
		t.Fatal("loaded bad claims without error")
	}
	for _, want := range []string{
		`suites/claims.yaml:8: claim name "Bad_Name" is not a DNS label`,
		`suites/claims.yaml:8: claim Bad_Name has no title`,
		`suites/claims.yaml:10: claim Bad_Name: unknown cell "defualts" (did you mean defaults?)`,
		`suites/claims.yaml:11: claim Bad_Name: unknown suite "nosuch"`,
		`suites/claims.yaml:8: claim Bad_Name: restart is "sometimes" (include, exclude or only)`,
		`suites/claims.yaml:8: claim Bad_Name: field state "kpet" is not kept, dropped or unknown (did you mean kept?)`,
		`suites/claims.yaml:8: claim Bad_Name: minCases is 0; a claim must not stand on no case`,
		`suites/claims.yaml:14: claim "ok" is already defined at suites/claims.yaml:4`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing problem %q in:\n%s", want, err)
		}
	}
}
