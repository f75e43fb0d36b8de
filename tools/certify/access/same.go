package access

// Same says whether got, as installed, grants or confines what want
// prints, as Drift compares them (rules, subjects, specs, the API
// server's defaults aside; no metadata): an apply that finds it so need
// not write it, and the preflight finds it current.
func Same(got, want any) bool {
	var diffs []string
	compare(comparable(got), comparable(want), "", &diffs)
	return len(diffs) == 0
}
