package match

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// contextLines is the usual unified-diff context; Mismatch paths locate a
// change precisely, so the diff does not need to show every parent key.
const contextLines = 3

// unifiedDiff renders a unified diff of two texts that end in newlines, ""
// when they are equal.
func unifiedDiff(fromName, toName, a, b string) string {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(a), B: lines(b), FromFile: fromName, ToFile: toName, Context: contextLines,
	})
	if err != nil {
		// It only writes to a strings.Builder, which cannot fail; keep the
		// texts rather than lose the diff.
		return fmt.Sprintf("--- %s\n%s+++ %s\n%s", fromName, a, toName, b)
	}
	return text
}

// lines splits text after each newline, without difflib.SplitLines' extra
// empty last line.
func lines(text string) []string {
	out := strings.SplitAfter(text, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
