package usecase

import (
	"fmt"
	"strings"

	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/report"
)

// Providers choose the cluster providers and fill their options.
type Providers struct {
	// Provider is --provider, comma-separated names.
	Provider   string
	Kubeconfig KubeconfigOptions
	Local      LocalOptions
	Bins       string // parsed into Local.Bins
	Kind       KindOptions
	// AllowUnconfined: write to a visited cluster that does not confine
	// the run's writes (see preflight).
	AllowUnconfined bool
}

// The providers' options, which the command line fills from its flags.
type (
	KubeconfigOptions = providers.KubeconfigOptions
	LocalOptions      = providers.LocalOptions
	KindOptions       = providers.KindOptions
)

// LocalBinariesTarget is the target of --provider local with binaries
// from elsewhere.
const LocalBinariesTarget = providers.LocalBinariesTarget

// ProviderNames are the implementations --provider knows.
func ProviderNames() []string { return providers.Names() }

// TargetNames are the implementations --provider names, as a run's
// targets (and labels, provider:<name>) name them.
func (f *Providers) TargetNames() []string {
	var out []string
	for _, name := range splitList(f.Provider) {
		if name == "local" && (f.Local.BinDir != "" || f.Bins != "") {
			name = providers.LocalBinariesTarget
		}
		out = append(out, name)
	}
	return out
}

// RerunFlags are the flags that give a target its binaries or cluster
// again, for the rerun commands a failure prints: binaries from elsewhere
// are --provider local with their --bin-dir, --bin and --bin-encoding, a
// cluster behind a kubeconfig is named by it.
func (f *Providers) RerunFlags() report.RerunFlags {
	out := report.RerunFlags{}
	var local []string
	if f.Local.BinDir != "" {
		local = append(local, "--bin-dir "+shellQuote(f.Local.BinDir))
	}
	if f.Bins != "" {
		local = append(local, "--bin "+shellQuote(f.Bins))
	}
	if len(local) > 0 {
		if f.Local.BinEncoding != "" && f.Local.BinEncoding != "protobuf" {
			local = append(local, "--bin-encoding "+f.Local.BinEncoding)
		}
		out[providers.LocalBinariesTarget] = "--provider local " + strings.Join(local, " ")
	}
	kc := []string{"--provider kubeconfig"}
	if f.Kubeconfig.Path != "" {
		kc = append(kc, "--kubeconfig "+shellQuote(f.Kubeconfig.Path))
	}
	if f.Kubeconfig.Context != "" {
		kc = append(kc, "--context "+shellQuote(f.Kubeconfig.Context))
	}
	if f.Kubeconfig.AllowFakeNodes {
		kc = append(kc, "--allow-fake-nodes")
	}
	if len(kc) > 1 {
		out["kubeconfig"] = strings.Join(kc, " ")
	}
	return out
}

// parseBins reads --bin: component=path pairs.
func parseBins(s string) (map[string]string, error) {
	return parsePairs("--bin", "component=path, e.g. kube-scheduler=/path/to/kube-scheduler", s)
}

func (f *Providers) config(name, outDir string, s Streams) (providers.Config, error) {
	bins, err := parseBins(f.Bins)
	if err != nil {
		return providers.Config{}, err
	}
	local := f.Local
	local.Bins = bins
	return providers.Config{Name: name, OutDir: outDir, Log: s.Out, Kubeconfig: f.Kubeconfig, Local: local, Kind: f.Kind}, nil
}

// SplitList reads a comma-separated list, its spaces and empty items left
// out.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseGoldenAs reads --golden-as: target=implementation pairs.
func ParseGoldenAs(s string) (map[string]string, error) {
	return parsePairs("--golden-as", "target=implementation, e.g. prototype-static=prototype", s)
}

// parsePairs reads a comma-separated list of key=value pairs of a flag.
func parsePairs(flag, want, s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range splitList(s) {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%s %q: want %s", flag, pair, want)
		}
		out[k] = v
	}
	return out, nil
}

func splitList(s string) []string { return SplitList(s) }

// ShellQuote quotes s for a shell where it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellQuote(s string) string { return ShellQuote(s) }

// ProviderUsage is --provider's help: every registered provider, as the
// registry describes it.
func ProviderUsage() string { return providers.Usage() }
