package usecase

import (
	"fmt"
	"time"

	"github.com/draconform/draconform/tools/certify/secretscan"
)

// scanOutput looks for credentials in what a run wrote to its output
// folder, which CI uploads: every file written since began, the cells'
// logs included. It says where each is (never the secret) and whether the
// folder is clean.
func scanOutput(outDir string, began time.Time, s Streams) bool {
	leaks, err := secretscan.Scan(outDir, began)
	if err != nil {
		fmt.Fprintln(s.Err, "draconform:", err)
		return false
	}
	if len(leaks) == 0 {
		return true
	}
	fmt.Fprintf(s.Err, "draconform: the run's output holds what looks like a credential; do not publish %s before removing it (report a bug if draconform wrote it):\n", outDir)
	for _, l := range leaks {
		fmt.Fprintln(s.Err, "  "+l.String())
	}
	return false
}
