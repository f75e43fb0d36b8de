package match

import (
	"fmt"
	"strings"
)

// contextLines is the usual unified-diff context; Mismatch paths locate a
// change precisely, so the diff does not need to show every parent key.
const contextLines = 3

type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

type lineOp struct {
	kind opKind
	text string
}

// unifiedDiff renders a unified diff of two texts that end in newlines.
func unifiedDiff(fromName, toName, a, b string) string {
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	// aLine/bLine count lines consumed so far, for hunk headers.
	aLine, bLine := 0, 0
	for i := 0; i < len(ops); {
		if ops[i].kind == opEqual {
			aLine, bLine, i = aLine+1, bLine+1, i+1
			continue
		}
		// The previous hunk stopped more than contextLines equal lines
		// before i, so the leading context never overlaps it.
		start := max(i-contextLines, 0)
		end := hunkEnd(ops, i)
		lead := i - start
		aStart, bStart := aLine-lead, bLine-lead
		var aCount, bCount int
		var body strings.Builder
		for _, op := range ops[start:end] {
			body.WriteByte(byte(op.kind))
			body.WriteString(op.text)
			body.WriteByte('\n')
			if op.kind != opInsert {
				aCount++
			}
			if op.kind != opDelete {
				bCount++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(aStart, aCount), hunkRange(bStart, bCount), body.String())
		aLine, bLine = aStart+aCount, bStart+bCount
		i = end
	}
	return out.String()
}

// hunkEnd extends a hunk starting at change i until a run of more than
// 2*contextLines equal lines separates it from the next change, so nearby
// changes share one hunk as in diff -u.
func hunkEnd(ops []lineOp, i int) int {
	for {
		for i < len(ops) && ops[i].kind != opEqual {
			i++
		}
		run := 0
		for i+run < len(ops) && ops[i+run].kind == opEqual {
			run++
		}
		if i+run == len(ops) || run > 2*contextLines {
			return i + min(run, contextLines)
		}
		i += run
	}
}

// hunkRange follows GNU diff: start is 1-based, ",count" is omitted for one
// line, and an empty range names the line before it.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines computes a minimal edit script by longest common subsequence.
// The quadratic table is fine because a common prefix and suffix are
// trimmed first and pruned documents are only as large as the assertion.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
	lcs := make([][]int, len(ma)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	ops := make([]lineOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, lineOp{opEqual, l})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, lineOp{opEqual, ma[i]})
			i, j = i+1, j+1
		case j == len(mb) || i < len(ma) && lcs[i+1][j] >= lcs[i][j+1]:
			// Deletions first, so a changed line reads "-old" then "+new".
			ops = append(ops, lineOp{opDelete, ma[i]})
			i++
		default:
			ops = append(ops, lineOp{opInsert, mb[j]})
			j++
		}
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, lineOp{opEqual, l})
	}
	return ops
}
