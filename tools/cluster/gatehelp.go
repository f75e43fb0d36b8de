package cluster

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A Kubernetes binary lists its alpha and beta gates in --help
// ("kube:Name=true|false"); an unknown gate makes it refuse to start. GA
// gates are not listed, and cells have no reason to set them. Asking first
// lets a provider skip a cell whose gates its binaries lack (a KEP they do
// not implement) with that reason, instead of failing it as a broken start.
var gateInHelp = regexp.MustCompile(`(?:kube:)?([A-Z][A-Za-z0-9]+)=true\|false`)

// GatesInHelp reads the gates a binary's --help output lists.
func GatesInHelp(help string) map[string]bool {
	out := map[string]bool{}
	for _, m := range gateInHelp.FindAllStringSubmatch(help, -1) {
		out[m[1]] = true
	}
	return out
}

// UnknownGates words the gates of g that known lacks, sorted; empty when
// component c knows them all.
func UnknownGates(c Component, known map[string]bool, g Gates) []string {
	var out []string
	for name := range g {
		if !known[name] {
			out = append(out, fmt.Sprintf("%s has no alpha or beta feature gate %s", c, name))
		}
	}
	sort.Strings(out)
	return out
}

// A Kubernetes binary refuses a gate state it cannot take with one of
// component-base's featuregate messages: a gate it lacks (never had, or
// removed), one locked to its default (GA or deprecated), or a gate turned
// off that an enabled gate depends on. These are the binary's own words for
// "this build does not offer that state", as opposed to a failure.
var gateRefusal = regexp.MustCompile(`unrecognized feature gate: [A-Za-z0-9]+` +
	`|cannot set feature gate [A-Za-z0-9]+ to (?:true|false), feature is ` +
	`(?:locked to (?:true|false)|PreAlpha at emulated version [0-9.]*[0-9], min compatibility version [0-9.]*[0-9])` +
	`|[A-Za-z0-9]+ is enabled, but depends on features that are disabled: \[[^\]\n]*\]`)

// GateRefusal picks the featuregate refusals out of a binary's output or a
// start-up error that holds its log, joined by "; ", each once; "" when
// there are none.
func GateRefusal(out string) string {
	var found []string
	for _, m := range gateRefusal.FindAllString(out, -1) {
		if !slices.Contains(found, m) {
			found = append(found, m)
		}
	}
	return strings.Join(found, "; ")
}

// GatesNotOffered is a restart's error where the component's binary did not
// take the gates asked for (GateRefusal found its refusal, or the provider
// said beforehand that the binary lacks them): the cluster cannot be put in
// that state, so the case does not apply to it. Is(ErrUnsupported) holds.
type GatesNotOffered struct {
	Component Component
	Gates     Gates
	// Reason is the binary's refusal, or the provider's.
	Reason string
}

func (e *GatesNotOffered) Error() string {
	return fmt.Sprintf("%s does not offer the gates {%s}: %s", e.Component, e.Gates.Flag(), e.Reason)
}

// Is makes a GatesNotOffered an ErrUnsupported: what the binary cannot do.
func (e *GatesNotOffered) Is(target error) bool { return target == ErrUnsupported }
