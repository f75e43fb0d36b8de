package match

import (
	"fmt"
	"slices"
)

// Unordered as a want value matches a got list of the same length whose
// elements can be paired one to one with want's, in any order: each want
// element matched (under Subset's rules) by a distinct got element. It is
// for lists whose order the API leaves open, such as a claim's allocation
// results when one request is given several devices.
type Unordered []any

// assign pairs each want element with a distinct got index: a maximum
// matching over "matches exactly" first (augmenting paths, so an early
// greedy choice cannot block a later element), then each element left over
// with the unused got element it differs from least, so the report shows
// the closest candidate. Unpaired want elements (got too short) get -1.
func assign(want Unordered, got []any) []int {
	fits := fitting(want, got)
	owner := make([]int, len(got)) // got index -> want index, or -1
	for j := range owner {
		owner[j] = -1
	}
	var augment func(i int, seen []bool) bool
	augment = func(i int, seen []bool) bool {
		for j := range got {
			if !fits[i][j] || seen[j] {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || augment(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range want {
		augment(i, make([]bool, len(got)))
	}
	pair := make([]int, len(want))
	for i := range pair {
		pair[i] = -1
	}
	for j, i := range owner {
		if i >= 0 {
			pair[i] = j
		}
	}
	pairTheRest(want, got, owner, pair)
	return pair
}

// fitting says, for each wanted item, which got items it matches whole.
func fitting(want Unordered, got []any) [][]bool {
	fits := make([][]bool, len(want))
	for i := range want {
		fits[i] = make([]bool, len(got))
		for j := range got {
			var ms []Mismatch
			compare(&ms, "", want[i], got[j], true)
			fits[i][j] = len(ms) == 0
		}
	}
	return fits
}

// pairTheRest pairs each wanted item no got item matches with the unpaired
// got item it differs from least, so that its mismatches say what is off.
func pairTheRest(want Unordered, got []any, owner, pair []int) {
	for i := range want {
		if pair[i] >= 0 {
			continue
		}
		best, fewest := -1, 0
		for j := range got {
			if owner[j] >= 0 {
				continue
			}
			var ms []Mismatch
			compare(&ms, "", want[i], got[j], true)
			if best < 0 || len(ms) < fewest {
				best, fewest = j, len(ms)
			}
		}
		if best >= 0 {
			owner[best], pair[i] = i, best
		}
	}
}

// compareUnordered reports, for a want element no distinct got element
// matches, its differences from the closest one left, at that got
// element's index; mismatches come out sorted by got index.
func compareUnordered(out *[]Mismatch, path string, want Unordered, got []any) {
	if len(got) != len(want) {
		*out = append(*out, Mismatch{Path: path, Want: []any(want), Got: got, Reason: fmt.Sprintf("length %d, want %d (in any order)", len(got), len(want))})
	}
	pair := assign(want, got)
	var wantAt []int // want indices by got index, for the sorted report
	for i, j := range pair {
		if j >= 0 {
			wantAt = append(wantAt, i)
		}
	}
	slices.SortFunc(wantAt, func(a, b int) int { return pair[a] - pair[b] })
	for _, i := range wantAt {
		var ms []Mismatch
		compare(&ms, indexPath(path, pair[i]), want[i], got[pair[i]], true)
		if len(ms) > 0 {
			*out = append(*out, Mismatch{Path: indexPath(path, pair[i]), Want: want[i], Got: got[pair[i]],
				Reason: fmt.Sprintf("no element matches want[%d] (in any order); closest differs", i)})
			*out = append(*out, ms...)
		}
	}
}

// pruneUnordered renders got in want's order, so that the diff lines up
// the pairs compareUnordered judged; got's unpaired elements follow.
func pruneUnordered(want Unordered, got []any) []any {
	pair := assign(want, got)
	used := make([]bool, len(got))
	var out []any
	for i, j := range pair {
		if j < 0 {
			continue
		}
		used[j] = true
		p, _ := prune(want[i], got[j], true)
		out = append(out, p)
	}
	for j, g := range got {
		if used[j] {
			continue
		}
		if len(want) > 0 {
			g, _ = prune(want[len(want)-1], g, true)
		}
		out = append(out, g)
	}
	return out
}
