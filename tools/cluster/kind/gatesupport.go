package kind

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/cluster"
)

// unrecognizedGate tells a component that refused a gate it does not have
// from one that refused a combination: the first is a binary without the
// KEP, a skip; the second is what a cell may accept as its outcome.
func unrecognizedGate(log string) bool {
	return strings.Contains(log, "unrecognized feature gate")
}

// askGates runs the component's binary in its running container for the
// gates it knows.
func askGates(ctx context.Context, n nodes.Node, c cluster.Component) (map[string]bool, error) {
	cs, err := listContainers(ctx, n, c)
	if err != nil {
		return nil, err
	}
	for _, ctr := range cs {
		if !ctr.running() {
			continue
		}
		out, err := nodeCombined(ctx, n, crictlHelpArgv(ctr.ID, c)...)
		if err != nil {
			return nil, fmt.Errorf("listing the feature gates of %s: %w", c, err)
		}
		known := cluster.GatesInHelp(string(out))
		if len(known) == 0 {
			return nil, fmt.Errorf("%s --help lists no feature gates; its output begins: %.200s", c, out)
		}
		return known, nil
	}
	return nil, fmt.Errorf("no running %s container to ask for its feature gates", c)
}
