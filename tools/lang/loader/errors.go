package loader

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Problem is one thing wrong with a spec file, at file:line.
type Problem struct {
	File string
	Line int
	Msg  string
	Hint string
}

func (p Problem) String() string {
	s := fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	if p.Hint != "" {
		s += " (" + p.Hint + ")"
	}
	return s
}

// Problems is every problem found, so one lint run shows them all.
type Problems []Problem

func (ps Problems) Error() string {
	sorted := append(Problems(nil), ps...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].File != sorted[j].File {
			return sorted[i].File < sorted[j].File
		}
		return sorted[i].Line < sorted[j].Line
	})
	lines := make([]string, len(sorted))
	for i, p := range sorted {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (ps *Problems) add(file string, line int, hint, format string, args ...any) {
	*ps = append(*ps, Problem{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Hint: strings.TrimSpace(hint)})
}

// Hints cost an edit distance per candidate, so a hostile file with
// thousands of misspelt names could make them quadratic: only the first
// maxHinted problems get a "did you mean", and only names of at most
// maxHintLen bytes among at most maxHintCandidates candidates.
const (
	maxHinted         = 100
	maxHintLen        = 64
	maxHintCandidates = 1000
)

// hinting tells whether the next problem gets a hint.
func (ps *Problems) hinting() bool { return len(*ps) < maxHinted }

// closest suggests the candidate nearest to got, for "did you mean" hints,
// while ps has fewer than maxHinted problems.
func (ps *Problems) closest(got string, candidates []string) string {
	if !ps.hinting() {
		return ""
	}
	return closest(got, candidates)
}

// closestKey suggests the key of m nearest to got, or one of first, which
// come before the keys; the keys are listed only when a hint is given.
func closestKey[K ~string, V any](ps *Problems, got string, m map[K]V, first ...string) string {
	if !ps.hinting() || len(m)+len(first) > maxHintCandidates {
		return ""
	}
	names := slices.Clone(first)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		names = append(names, string(k))
	}
	return closest(got, names)
}

// closest suggests the candidate nearest to got, for "did you mean" hints.
func closest(got string, candidates []string) string {
	if len(got) > maxHintLen || len(candidates) > maxHintCandidates {
		return ""
	}
	lower := strings.ToLower(got)
	bound := max(2, len(got)/3)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		lc := strings.ToLower(c)
		// The distance is at least the difference in length.
		if len(lc) > len(lower)+bound || len(lower) > len(lc)+bound {
			continue
		}
		if d := editDistance(lower, lc); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > bound {
		return ""
	}
	return "did you mean " + best + "?"
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// DidYouMean is the hint lint gives for a misspelt name, "did you mean
// X?", or "" when no candidate is close: the command line gives the same
// hint for a misspelt --suite, --cells or --provider.
func DidYouMean(got string, candidates []string) string { return closest(got, candidates) }
