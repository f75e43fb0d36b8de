package usecase

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// certifiedVerdict is the run's verdict of claim, once the run is known to
// be whole: interrupted, or with a cell's process gone, or a setup or
// teardown that failed, it certifies nothing, whatever its verdicts say.
func certifiedVerdict(ctx context.Context, runDir, claim string) (report.Verdict, error) {
	if ctx.Err() != nil {
		return report.Verdict{}, fmt.Errorf("the run was interrupted (%v)", context.Cause(ctx))
	}
	if problems := report.RunProblems(runDir); len(problems) > 0 {
		return report.Verdict{}, fmt.Errorf("the run did not finish cleanly: %s", strings.Join(problems, "; "))
	}
	verdicts, err := readVerdicts(runDir)
	if err != nil {
		return report.Verdict{}, fmt.Errorf("the run left no verdicts: %w", err)
	}
	var found []report.Verdict
	for _, v := range verdicts {
		if v.Claim == claim {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		return report.Verdict{}, fmt.Errorf("the run gave %d verdicts of %s, not one", len(found), claim)
	}
	for _, b := range found[0].Blocking {
		if strings.Contains(b, report.NoOutcome) {
			return report.Verdict{}, fmt.Errorf("the run did not finish: %s", b)
		}
	}
	return found[0], nil
}

func readVerdicts(runDir string) ([]report.Verdict, error) {
	data, err := os.ReadFile(filepath.Join(runDir, report.VerdictsFile))
	if err != nil {
		return nil, err
	}
	var vs []report.Verdict
	return vs, json.Unmarshal(data, &vs)
}

// serverVersion is the version the first cell that started reported.
func serverVersion(runDir string) string {
	data, err := os.ReadFile(filepath.Join(runDir, report.FactsFile))
	if err != nil {
		return ""
	}
	var cells []runner.CellFacts
	if json.Unmarshal(data, &cells) != nil {
		return ""
	}
	for _, c := range cells {
		if c.Read != nil && c.Read.ServerVersion != "" {
			return c.Read.ServerVersion
		}
	}
	return ""
}

// judgeBundle recomputes a bundle's verdict of the claim it names, and
// lists the claim's cases its outcomes lack.
func judgeBundle(claims []report.Claim, name string, outcomes []report.Outcome, facts []byte) (report.Verdict, []string, error) {
	i := slices.IndexFunc(claims, func(c report.Claim) bool { return c.Name == name })
	if i < 0 {
		return report.Verdict{}, nil, fmt.Errorf("%s is not a claim of this draconform", name)
	}
	var cells []runner.CellFacts
	if err := json.Unmarshal(facts, &cells); err != nil {
		return report.Verdict{}, nil, fmt.Errorf("%s: %w", bundle.FactsFile, err)
	}
	vs := report.Verdicts(claims[i:i+1], outcomes, runner.CellStates(cells), true)
	if len(vs) != 1 {
		return report.Verdict{}, nil, fmt.Errorf("the outcomes are of %d implementations: a bundle certifies one", len(vs))
	}
	var missing []string
	for _, b := range vs[0].Blocking {
		if id, _, ok := strings.Cut(b, " "+report.NoOutcome); ok {
			missing = append(missing, id)
		}
	}
	return vs[0], missing, nil
}
