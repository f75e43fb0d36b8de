package report

import "slices"

// grid is one implementation's outcomes as suites × cells, in the order the
// matrix and report.html show them: suites as they ran, cells as
// cells.yaml lists them.
type grid struct {
	target        string
	suites, cells []string
	counts        map[[2]string]*counts
	sum           counts
}

// at is the counts of suite in cell; zero where none ran.
func (g grid) at(suite, cell string) counts {
	if c := g.counts[[2]string{suite, cell}]; c != nil {
		return *c
	}
	return counts{}
}

// gridsOf groups outcomes by implementation, in run order.
func gridsOf(outcomes []Outcome, cellOrder []string) []grid {
	var out []grid
	index := map[string]int{}
	for _, o := range outcomes {
		i, ok := index[o.Target]
		if !ok {
			i = len(out)
			index[o.Target] = i
			out = append(out, grid{target: o.Target, counts: map[[2]string]*counts{}})
		}
		g := &out[i]
		if !slices.Contains(g.suites, o.Suite) {
			g.suites = append(g.suites, o.Suite)
		}
		if !slices.Contains(g.cells, o.Cell) {
			g.cells = append(g.cells, o.Cell)
		}
		k := [2]string{o.Suite, o.Cell}
		if g.counts[k] == nil {
			g.counts[k] = &counts{}
		}
		g.counts[k].add(o.State)
		g.sum.add(o.State)
	}
	for i := range out {
		slices.SortStableFunc(out[i].cells, func(a, b string) int { return slices.Index(cellOrder, a) - slices.Index(cellOrder, b) })
	}
	return out
}
