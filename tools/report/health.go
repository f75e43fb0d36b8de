package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/internal/textline"
)

// NoOutcome is how a verdict names a planned case a complete run never
// reached.
const NoOutcome = "has no outcome"

// RunProblems lists what went wrong in the run whose reports are in dir
// beside its cases: ginkgo's own reasons for failing the suite (an
// interrupt, a timeout) and a failed set-up or tear-down. A case that
// failed is not a problem of the run: its claims' verdicts say what it
// means.
func RunProblems(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		return []string{fmt.Sprintf("its report is missing: %v", err)}
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return []string{fmt.Sprintf("its report %s does not parse: %v", JSONFile, err)}
	}
	var out []string
	for _, r := range reports {
		out = append(out, r.SpecialSuiteFailureReasons...)
		for _, s := range r.SpecReports {
			if s.LeafNodeType == types.NodeTypeIt || !s.State.Is(types.SpecStateFailureStates) {
				continue
			}
			out = append(out, fmt.Sprintf("%s failed: %s", s.LeafNodeType, textline.Summary(s.Failure.Message, " …")))
		}
	}
	return out
}
