package usecase

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// gatesOnBundle writes the bundle of a certify run of kep6406-gates-on on
// a kubeconfig cluster, as verify-bundle checks it, with every case of the
// claim passed but those in flip, which failed; run names the run in its
// messages, as a run's own objects are named.
func gatesOnBundle(t *testing.T, run string, flip ...string) string {
	t.Helper()
	b, err := loader.Load(suites.FS, fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	claims := plan.Claims(b, plan.Expand(b, plan.Filter{}))
	var outcomes []report.Outcome
	cells := map[string]bool{}
	for _, c := range claims {
		if c.Name != "kep6406-gates-on" {
			continue
		}
		for _, cc := range c.Cases {
			o := report.Outcome{ID: cc.ID, Target: "kubeconfig", Suite: strings.Split(cc.ID, "/")[0], Cell: cc.Cell, State: report.Passed, Seconds: float64(len(run))}
			for _, f := range flip {
				if cc.ID == f {
					o.State, o.Message = report.Failed, "pod dc-"+run+"-x/p stayed pending"
				}
			}
			outcomes, cells[cc.Cell] = append(outcomes, o), true
		}
	}
	var facts []runner.CellFacts
	for cell := range cells {
		facts = append(facts, runner.CellFacts{Target: "kubeconfig", Cell: cell, Caps: probe.Capabilities{CapacityRequestsField: probe.FieldKept}})
	}
	factsJSON, _ := json.Marshal(facts)
	verdict, _, err := judgeBundle(claims, "kep6406-gates-on", outcomes, factsJSON)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	junit, err := report.JUnit(types.Report{}, outcomes, dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{report.FactsFile: factsJSON, report.JUnitFile: junit, "e2e.log": []byte("run " + run + "\nverdicts:\n")}
	files[report.OutcomesFile], _ = json.Marshal(outcomes)
	for name, data := range files {
		_ = os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	if err := bundle.WriteAccess(dir, bundle.Access{Cluster: bundle.ClusterVisited, Confined: "yes"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundle")
	p := spec.Product{Vendor: "V", Name: "N", Version: "1", Driver: "gpu.example.com", Image: "img:1", Contact: "a@b.example", KubernetesVersion: "v1.37.2"}
	err = bundle.Write(out, bundle.Inputs{RunDir: dir, Log: filepath.Join(dir, "e2e.log"), Product: p, Command: "draconform certify --out=" + run,
		Version: map[string]string{"suiteDigest": suiteDigest()}, Verdict: verdict})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// verify-bundle --same-as: certify's bundle and the Sonobuoy plugin's of
// the same cluster are the same where their verdicts and outcomes are,
// whatever names and timings their runs had; a flipped outcome is a
// difference, named, and a second bundle that is no valid bundle is
// refused as such, named.
func TestVerifyBundleSameAs(t *testing.T) {
	certify := gatesOnBundle(t, "certify1")
	v, err := VerifyBundle(VerifyRequest{Dir: certify, SameAs: gatesOnBundle(t, "plugin22")})
	if err != nil || v.Verdict.State != report.Conformant || v.Compared == 0 {
		t.Fatalf("the same verdict by the same outcomes: %+v, %v", v, err)
	}
	flipped := readOutcomes(t, certify)[0].ID
	_, err = VerifyBundle(VerifyRequest{Dir: certify, SameAs: gatesOnBundle(t, "plugin22", flipped)})
	var m *Mismatch
	if !errors.As(err, &m) || !strings.Contains(m.Error(), flipped+" on kubeconfig: passed in the first, failed in the second") || !strings.Contains(m.Error(), "verdict of kep6406-gates-on on kubeconfig: CONFORMANT in the first") {
		t.Errorf("a flipped outcome: %v", err)
	}
	tampered := gatesOnBundle(t, "plugin22")
	_ = os.WriteFile(filepath.Join(tampered, bundle.VerdictsFile), []byte("[]"), 0o644)
	var bad *InvalidBundle
	if _, err := VerifyBundle(VerifyRequest{Dir: certify, SameAs: tampered}); !errors.As(err, &bad) || bad.Dir != tampered {
		t.Errorf("an invalid second bundle: %v", err)
	}
}

func readOutcomes(t *testing.T, dir string) []report.Outcome {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, bundle.OutcomesFile))
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []report.Outcome
	if err := json.Unmarshal(data, &outcomes); err != nil || len(outcomes) == 0 {
		t.Fatalf("%d outcomes: %v", len(outcomes), err)
	}
	return outcomes
}
