package cluster

import (
	"fmt"
	"regexp"
	"sort"
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
