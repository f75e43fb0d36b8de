package runner

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/draconform/draconform/tools/lang/plan"
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
			return sel, fmt.Errorf("--label-filter %q: %s", labelFilter, plainError(err, labelFilter))
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

// ansi matches colour codes and the formatter markup ginkgo colours with.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m|{{[a-z0-9/-]*}}")

// plainError is a ginkgo parse error as one line of plain text: ginkgo
// colours its errors, and a command line's refusal goes to a terminal, a
// pipe or a CI log alike. The line that repeats the input is left out.
func plainError(err error, input string) string {
	text := err.Error()
	var g types.GinkgoError
	if errors.As(err, &g) {
		text = g.Heading + "\n" + g.Message
	}
	var parts []string
	for _, line := range strings.Split(ansi.ReplaceAllString(text, ""), "\n") {
		if line = strings.TrimSpace(line); line != "" && line != input {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, ": ")
}
