package steps

import (
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
