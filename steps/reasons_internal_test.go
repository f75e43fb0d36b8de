package steps

import (
	"slices"
	"strings"
	"testing"
)

// A meaning holds every release's wording: a message in either passes, an
// unrelated one does not.
func TestReasonWordings(t *testing.T) {
	table := map[string][]wording{"insufficient-devices": {
		{Text: "cannot allocate all claims", Source: "v1.37.2"},
		{Text: "not enough devices", Source: "a later release (made up for the test)"},
	}}
	texts := wordingsOf(table, "insufficient-devices")
	for msg, want := range map[string]bool{
		"0/1 nodes are available: 1 cannot allocate all claims.":      true,
		"0/1 nodes are available: 1 not enough devices for claim x.":  true,
		"0/1 nodes are available: 1 device class gpu does not exist.": false,
		"": false,
	} {
		if got := containsAny(msg, texts); got != want {
			t.Errorf("containsAny(%q) = %v, want %v", msg, got, want)
		}
	}
	if got := wordingsOf(table, "other"); len(got) != 0 {
		t.Errorf("an unknown meaning has wordings %q", got)
	}
}

// Every meaning of the real table has at least one wording, each with its
// source, and none is empty (every message contains "").
func TestReasonTable(t *testing.T) {
	if len(ReasonNames()) == 0 {
		t.Fatal("no reasons")
	}
	for _, name := range ReasonNames() {
		ws := unschedulableReasons[name]
		if len(ws) == 0 {
			t.Errorf("%s has no wording", name)
		}
		for _, w := range ws {
			if strings.TrimSpace(w.Text) == "" || w.Source == "" {
				t.Errorf("%s: wording %+v needs a text and a source", name, w)
			}
		}
	}
}

// insufficient-devices takes any words that name no other reason: an
// implementation that rewords the allocator's failure certifies, a pod
// pending for another plugin's reason or for the skew guard does not.
func TestInsufficientDevicesInAnyWording(t *testing.T) {
	for msg, want := range map[string]bool{
		"0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.": true,
		"0/1 nodes are available: 1 no device has room for the pod's device requests.":                                                            true,
		"0/2 nodes are available: 1 Insufficient cpu, 1 cannot allocate all claims.":                                                              true,
		"0/1 nodes are available: 1 Insufficient example.com/gpu.":                                                                                false,
		"0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.":                                              false,
		"0/1 nodes are available: 1 DeviceClass c sets extendedResourceCapacityRequests, but the gate is off.":                                    false,
		"0/1 nodes are available: 1 resourceclaim not available on the node.":                                                                     false,
		"": false,
	} {
		if got := reasonMatches("insufficient-devices", msg); got != want {
			t.Errorf("insufficient-devices in %q: %v, want %v", msg, got, want)
		}
	}
	// skew-guard keeps to its wordings: the remedy must be named (R11).
	if reasonMatches("skew-guard", "0/1 nodes are available: 1 this class cannot be used now.") {
		t.Error("skew-guard matched a message that names neither the gate nor the field")
	}
}

func TestNodeReasons(t *testing.T) {
	got := nodeReasons("0/5 nodes are available: 1 node(s) had untolerated taint {a: b, c: d}, 4 no device has room. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")
	want := []string{"node(s) had untolerated taint {a: b, c: d}", "no device has room"}
	if !slices.Equal(got, want) {
		t.Errorf("nodeReasons = %q, want %q", got, want)
	}
	if got := nodeReasons("the DRAExtendedResourceCapacity gate is off"); len(got) != 1 {
		t.Errorf("a message in another form is one reason: %q", got)
	}
}
