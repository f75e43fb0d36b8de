package localcp

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

// A binary lists its alpha and beta gates in --help ("kube:Name=true|false");
// an unknown gate makes it refuse to start. (GA gates are not listed; cells
// have no reason to set them, and spec.KnownGates does not offer them.) Asking first lets a cell
// that needs a gate these binaries lack (a KEP they do not implement) be
// skipped with that reason instead of failing as a broken start.
var gateInHelp = regexp.MustCompile(`(?:kube:)?([A-Z][A-Za-z0-9]+)=true\|false`)

// unsupportedGates returns the gates of g that some component's binary does
// not know, as a sentence, or "" when all are known.
func (p *Provider) unsupportedGates(ctx context.Context, g cluster.GateState, binary func(cluster.Component) string) (string, error) {
	var missing []string
	for comp, gates := range g {
		if len(gates) == 0 {
			continue
		}
		known, err := p.knownGates(ctx, binary(comp))
		if err != nil {
			return "", err
		}
		for name := range gates {
			if !known[name] {
				missing = append(missing, fmt.Sprintf("%s has no alpha or beta feature gate %s", comp, name))
			}
		}
	}
	sort.Strings(missing)
	return strings.Join(missing, "; "), nil
}

func (p *Provider) knownGates(ctx context.Context, bin string) (map[string]bool, error) {
	p.mu.Lock()
	known, ok := p.gateCache[bin]
	p.mu.Unlock()
	if ok {
		return known, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--help").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("local: listing the feature gates of %s: %w", bin, err)
	}
	known = map[string]bool{}
	for _, m := range gateInHelp.FindAllStringSubmatch(string(out), -1) {
		known[m[1]] = true
	}
	p.mu.Lock()
	p.gateCache[bin] = known
	p.mu.Unlock()
	return known, nil
}
