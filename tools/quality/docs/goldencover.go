package docs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/draconform/draconform/tools/report"
)

// GoldenUncovered is every case of the plan (ids, suite/case@cell) that
// the golden table records no outcome of for an implementation it records
// at that case's cell. A run compares only the outcomes it had, so a case
// added to the suites without its golden outcome of a provider that is run
// elsewhere (kind's gate matrix in CI) fails only there, half an hour into
// that run: the docs check says it at once.
func GoldenUncovered(g report.Golden, ids []string) []string {
	cellsOf := map[string]map[string]bool{}
	for key := range g {
		target, id, _ := strings.Cut(key, " ")
		_, cell, _ := strings.Cut(id, "@")
		if cellsOf[target] == nil {
			cellsOf[target] = map[string]bool{}
		}
		cellsOf[target][cell] = true
	}
	var missing []string
	for target, cells := range cellsOf {
		for _, id := range ids {
			_, cell, _ := strings.Cut(id, "@")
			if _, ok := g[target+" "+id]; cells[cell] && !ok {
				missing = append(missing, fmt.Sprintf("[%s] %s", target, id))
			}
		}
	}
	sort.Strings(missing)
	return missing
}
