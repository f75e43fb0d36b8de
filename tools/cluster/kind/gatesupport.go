package kind

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/cluster"
)

// A component lists its alpha and beta gates in --help
// ("kube:Name=true|false"), as the embedded provider relies on too; GA
// gates are not listed, and cells have no reason to set them.
var gateInHelp = regexp.MustCompile(`(?:kube:)?([A-Z][A-Za-z0-9]+)=true\|false`)

func gatesInHelp(help string) map[string]bool {
	out := map[string]bool{}
	for _, m := range gateInHelp.FindAllStringSubmatch(help, -1) {
		out[m[1]] = true
	}
	return out
}

// unknownGates words the gates of g that known lacks, sorted; empty when
// the component knows them all.
func unknownGates(c cluster.Component, known map[string]bool, g cluster.Gates) []string {
	var out []string
	for name := range g {
		if !known[name] {
			out = append(out, fmt.Sprintf("%s has no alpha or beta feature gate %s", c, name))
		}
	}
	sort.Strings(out)
	return out
}

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
		known := gatesInHelp(string(out))
		if len(known) == 0 {
			return nil, fmt.Errorf("%s --help lists no feature gates; its output begins: %.200s", c, out)
		}
		return known, nil
	}
	return nil, fmt.Errorf("no running %s container to ask for its feature gates", c)
}
