package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/draconform/draconform/tools/internal/textline"
	"github.com/draconform/draconform/tools/report"
)

// PastRun is what a run's output folder keeps of it: its outcomes and
// verdicts.
type PastRun struct {
	Dir      string
	Outcomes []report.Outcome
	Verdicts []report.Verdict
}

// LoadPastRun reads a run's outcomes and verdicts from its output folder.
func LoadPastRun(dir string) (*PastRun, error) {
	p := &PastRun{Dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, report.OutcomesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no %s: not the output folder of a run that finished (draconform run --out, default _output/<run id>)", dir, report.OutcomesFile)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &p.Outcomes); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, report.OutcomesFile), err)
	}
	data, err = os.ReadFile(filepath.Join(dir, report.VerdictsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &p.Verdicts); err != nil {
			return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, report.VerdictsFile), err)
		}
	}
	return p, nil
}

// Show prints the run's summary as it ended (the table, every failure with
// its reason and rerun command, the verdicts) and, with a golden table,
// judges it again against that table: a run of some cases is compared on
// those alone. It reports whether the run passes: no blocking failure, no
// verdict not conformant, no outcome off the table.
func (p *PastRun) Show(w io.Writer, golden string) (bool, error) {
	fmt.Fprintf(w, "run in %s: %s\n\n", p.Dir, textline.Count(len(p.Outcomes), "outcome"))
	fmt.Fprint(w, report.Summary(p.Outcomes, report.Run{Verdicts: p.Verdicts}))
	ok := true
	for _, o := range p.Outcomes {
		ok = ok && !(o.State == report.Failed && !o.Informing)
	}
	for _, v := range p.Verdicts {
		ok = ok && v.State != report.NotConformant
	}
	if golden == "" {
		return ok, nil
	}
	g, err := report.LoadGolden(golden)
	if err != nil {
		return false, err
	}
	res, err := g.Check(p.Outcomes, false, nil)
	if err != nil {
		return false, err
	}
	switch {
	case len(res.Diffs) > 0:
		fmt.Fprintf(w, "%d outcomes differ from the golden table %s:\n  %s\n", len(res.Diffs), golden, strings.Join(res.Diffs, "\n  "))
		ok = false
	case len(res.Compared) == 0:
		fmt.Fprintf(w, "nothing was compared with the golden table %s, which has no outcomes of: %s\n", golden, strings.Join(res.NotCompared, ", "))
	default:
		fmt.Fprintf(w, "every outcome of %s matches the golden table %s (outcomes the run did not have were not checked)\n", strings.Join(res.Compared, ", "), golden)
	}
	return ok, nil
}

// Failed are the run's failed outcomes, informing ones included: a rerun
// of what failed reruns them all.
func (p *PastRun) Failed() []report.Outcome {
	var out []report.Outcome
	for _, o := range p.Outcomes {
		if o.State == report.Failed {
			out = append(out, o)
		}
	}
	return out
}

// FailedFocus is a --focus that selects exactly the cases of outcomes (by
// their ids, on any implementation a run names), and the implementations
// they failed on, in order.
func FailedFocus(outcomes []report.Outcome) (focus string, targets []string) {
	var ids []string
	for _, o := range outcomes {
		if q := regexp.QuoteMeta(o.ID); !slices.Contains(ids, q) {
			ids = append(ids, q)
		}
		if !slices.Contains(targets, o.Target) {
			targets = append(targets, o.Target)
		}
	}
	if len(ids) == 0 {
		return "", targets
	}
	// An id ends its case's title: suite/case@cell.
	return "(^| )(" + strings.Join(ids, "|") + ")$", targets
}
