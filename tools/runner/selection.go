package runner

import (
	"fmt"
	"regexp"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/plan"
)

// selection is what --focus and --label-filter let through. It matches as
// ginkgo would on the tree Register builds: the focus against the suite's
// name and description and the case's title, the filter against the case's
// labels.
type selection struct {
	focus  *regexp.Regexp
	labels types.LabelFilter
}

// Selection says which cases of a target --focus and --label-filter let
// through, for a caller that plans processes before the runner runs.
func Selection(focus, labelFilter string) (func(plan.Case) bool, error) {
	sel, err := newSelection(focus, labelFilter)
	if err != nil {
		return nil, err
	}
	return sel.matches, nil
}

func newSelection(focus, labelFilter string) (selection, error) {
	var sel selection
	if focus != "" {
		re, err := regexp.Compile(focus)
		if err != nil {
			return sel, fmt.Errorf("--focus %q: %w", focus, err)
		}
		sel.focus = re
	}
	if labelFilter != "" {
		f, err := types.ParseLabelFilter(labelFilter)
		if err != nil {
			return sel, fmt.Errorf("--label-filter %q: %w", labelFilter, err)
		}
		sel.labels = f
	}
	return sel, nil
}

func (s selection) matches(c plan.Case) bool {
	if s.focus != nil && !s.focus.MatchString(c.Suite.Name+" "+c.Suite.Description+" "+c.Title()) {
		return false
	}
	return s.labels == nil || s.labels(c.Labels)
}
