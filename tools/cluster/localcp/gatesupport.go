package localcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

// CellUnsupported implements cluster.Provider.
func (p *Provider) CellUnsupported(ctx context.Context, gates cluster.GateState, released []cluster.Component) (string, error) {
	set := map[cluster.Component]bool{}
	for _, comp := range released {
		set[comp] = true
	}
	if len(set) > 0 && p.opts.ReleasedBinDir == "" {
		return "no released Kubernetes binaries", nil
	}
	return p.unsupportedGates(ctx, gates, func(comp cluster.Component) string { return p.opts.binary(comp, set) })
}

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
		missing = append(missing, cluster.UnknownGates(comp, known, gates)...)
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
	cmd, err := p.trust.Command(ctx, bin, "--help")
	if err != nil {
		return nil, fmt.Errorf("local: listing the feature gates: %w", err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("local: listing the feature gates of %s: %w", bin, err)
	}
	known = cluster.GatesInHelp(string(out))
	p.mu.Lock()
	p.gateCache[bin] = known
	p.mu.Unlock()
	return known, nil
}

// GatesRefused implements cluster.Provider. A Kubernetes binary checks
// --feature-gates (unknown gates, locked ones, disabled dependencies) while
// it parses its flags, before --version prints and exits: so the binary
// itself says, in a fraction of a second and starting nothing, whether it
// would take gates, and in the words it would refuse them with at a start.
func (p *Provider) GatesRefused(ctx context.Context, comp cluster.Component, gates cluster.Gates, released []cluster.Component) (string, error) {
	if len(gates) == 0 {
		return "", nil
	}
	set := map[cluster.Component]bool{}
	for _, c := range released {
		set[c] = true
	}
	bin := p.opts.binary(comp, set)
	key := bin + " --feature-gates=" + gates.Flag()
	p.mu.Lock()
	why, ok := p.refusalCache[key]
	p.mu.Unlock()
	if ok {
		return why, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd, err := p.trust.Command(ctx, bin, "--feature-gates="+gates.Flag(), "--version")
	if err != nil {
		return "", fmt.Errorf("local: asking %s about --feature-gates=%s: %w", comp, gates.Flag(), err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		refusal := cluster.GateRefusal(string(out))
		if refusal == "" {
			return "", fmt.Errorf("local: asking %s whether it takes --feature-gates=%s: %w; its output begins: %.300s", bin, gates.Flag(), err, out)
		}
		why = fmt.Sprintf("%s (%s) refuses --feature-gates=%s: %s", comp, bin, gates.Flag(), refusal)
	}
	p.mu.Lock()
	p.refusalCache[key] = why
	p.mu.Unlock()
	return why, nil
}
