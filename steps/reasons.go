package steps

import (
	"regexp"
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

// anyWording are the meanings a message may word in any way that names no
// other reason (register entry R22): the scheduler says why a pod is
// unschedulable only in text, and an implementation may reword its own
// reason. A message in a known wording passes; one in unknown words passes
// unless it names a reason of another plugin or another meaning, so that a
// pod pending for an unrelated reason still fails.
var anyWording = map[string]bool{"insufficient-devices": true}

// foreignReasons are what kube-scheduler's other plugins, and the
// DynamicResources plugin for other causes than the allocator's, say of a
// node (k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins: each
// plugin's ErrReason constants and statusUnschedulable calls).
var foreignReasons = []string{
	"Insufficient ", "Too many pods",
	"had untolerated taint", "had taints that the pod didn't tolerate",
	"didn't match Pod's node affinity/selector", "didn't match the requested node name",
	"were unschedulable", "had unknown conditions",
	"didn't have free ports", "didn't match pod affinity rules", "didn't match pod anti-affinity rules",
	"didn't satisfy existing pods anti-affinity rules", "didn't match pod topology spread constraints",
	"exceed max volume count", "did not have enough free storage", "had no available volume zone",
	"resourceclaim in use", "resourceclaim not available on the node", "ResourceClaim unreserved",
	"cannot fit resource", "cannot schedule extended resource claim", "does not exist",
	"in the process of being allocated", "feature is disabled", "unknown request type",
	"asked by caller to stop allocating",
}

// reasonMatches says whether a scheduler's message expresses the meaning:
// in a wording known from a release, or, for a meaning any wording may
// express, in words that name no other reason. kube-scheduler gives a
// reason per group of nodes ("0/5 nodes are available: 1 node(s) didn't
// match Pod's node affinity/selector, 4 <reason>."), and the other nodes of
// a shared cluster are refused for reasons of their own: one node's reason
// in such words is enough.
func reasonMatches(reason, msg string) bool {
	if containsAny(msg, reasonWordings(reason)) {
		return true
	}
	if !anyWording[reason] {
		return false
	}
	for _, r := range nodeReasons(msg) {
		if r != "" && !containsAny(r, foreignReasons) && !otherMeaning(reason, r) {
			return true
		}
	}
	return false
}

// otherMeaning says whether text is in a known wording of a meaning other
// than reason.
func otherMeaning(reason, text string) bool {
	for other := range unschedulableReasons {
		if other != reason && containsAny(text, reasonWordings(other)) {
			return true
		}
	}
	return false
}

var (
	// nodesAvailable opens kube-scheduler's summary of why no node fits.
	nodesAvailable = regexp.MustCompile(`^\d+/\d+ nodes are available: `)
	// countedReason opens one group of nodes refused for one reason.
	countedReason = regexp.MustCompile(`^\d+ `)
)

// nodeReasons splits a scheduler's message into the reasons it gives for
// groups of nodes, without their counts; the summary of preemption that
// follows them is left out. A message in another form is one reason.
func nodeReasons(msg string) []string {
	msg = strings.TrimSpace(msg)
	loc := nodesAvailable.FindStringIndex(msg)
	if loc == nil {
		return []string{msg}
	}
	body := msg[loc[1]:]
	if i := strings.Index(body, " preemption: "); i >= 0 {
		body = body[:i]
	}
	body = strings.TrimSuffix(strings.TrimSpace(body), ".")
	var out []string
	for _, part := range strings.Split(body, ", ") {
		// A reason with a comma of its own (a taint's {key: value, ...})
		// continues the one before it: a group begins with its count.
		if c := countedReason.FindString(part); c != "" || len(out) == 0 {
			out = append(out, strings.TrimPrefix(part, c))
			continue
		}
		out[len(out)-1] += ", " + part
	}
	return out
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
