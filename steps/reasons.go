package steps

import (
	"slices"
	"strings"
)

// wording is one release's words for a reason the scheduler gives.
type wording struct {
	Text string
	// Source says where the words come from, so that a new release's
	// wording is added with its provenance and an old one can be retired.
	Source string
}

// unschedulableReasons map what a case means (the KEP promises a pod "stays
// unschedulable", never in which words) to the words each known release of
// kube-scheduler uses for it. A case that names the meaning passes on any
// of them, and fails on any other message, so a pod pending for an
// unrelated reason still fails it.
var unschedulableReasons = map[string][]wording{
	// The allocator ran and found no devices for the pod's claims (too few
	// devices or too little capacity left, a capacity no device has, a
	// request above a device's policy). kube-scheduler's DynamicResources
	// Filter words it alike in both releases the suite knows.
	"insufficient-devices": {
		{Text: "cannot allocate all claims", Source: "k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go:1095, v1.38.0-beta.0 same file:1092"},
	},
	// A scheduler whose DRAExtendedResourceCapacity gate is off refuses a
	// class that sets the field (KEP-6406 Risks and Mitigations) "with an
	// explanatory event". No release has the guard yet; an event explains
	// when it names one of the two remedies the KEP gives: turn the gate
	// on in the scheduler, or remove the field from the class. Which of
	// them it must name is register entry R11, which only informs.
	"skew-guard": {
		{Text: "DRAExtendedResourceCapacity", Source: "KEP-6406 Risks and Mitigations: \"enables the gate on the scheduler\""},
		{Text: "extendedResourceCapacityRequests", Source: "KEP-6406 Risks and Mitigations: \"removes the field from the DeviceClass\""},
	},
}

// ReasonNames are the meanings expectUnschedulable's reason: accepts.
func ReasonNames() []string {
	var out []string
	for name := range unschedulableReasons {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// reasonWordings returns the texts any of which expresses the meaning.
func reasonWordings(reason string) []string { return wordingsOf(unschedulableReasons, reason) }

func wordingsOf(table map[string][]wording, reason string) []string {
	var out []string
	for _, w := range table[reason] {
		out = append(out, w.Text)
	}
	return out
}

// containsAny says which of texts s contains, if any.
func containsAny(s string, texts []string) bool {
	for _, t := range texts {
		if t != "" && strings.Contains(s, t) {
			return true
		}
	}
	return false
}
