package report

import (
	"encoding/json"
	"fmt"

	"github.com/onsi/ginkgo/v2/types"
)

// Key identifies a case of a run. The runner gives it to the report as a
// typed entry (EntryKey), so that the report never parses labels or titles
// back: a renamed label cannot break the golden comparison.
type Key struct {
	Target    string `json:"target,omitempty"`
	Suite     string `json:"suite"`
	Case      string `json:"case"`
	Cell      string `json:"cell"`
	Contested bool   `json:"contested,omitempty"`
	Known     bool   `json:"knownIssue,omitempty"`
	// Informing cases rest on a reading the KEP leaves open: they never
	// block a claim.
	Informing bool `json:"informing,omitempty"`
}

// EntryKey is the report entry that carries a case's Key.
const EntryKey = "key"

// ID is suite/case@cell, what --focus matches and reports show.
func (k Key) ID() string { return fmt.Sprintf("%s/%s@%s", k.Suite, k.Case, k.Cell) }

// Title is what ginkgo, reports and diagnostics files show: the ID and the
// implementation.
func (k Key) Title() string { return Title(k.Target, k.ID()) }

// Title is the one spelling of a case's name with its implementation.
func Title(target, id string) string {
	if target == "" {
		return id
	}
	return "[" + target + "] " + id
}

// State is how a case ended.
type State string

// The states of an outcome.
const (
	Passed  State = "passed"
	Failed  State = "failed"
	Skipped State = "skipped"
)

// keyOf reads a Key entry's value: in the process that added it, ginkgo
// holds the Go value; from a parallel process, only its JSON.
func keyOf(v types.ReportEntryValue) (Key, bool) {
	if k, ok := v.GetRawValue().(Key); ok {
		return k, true
	}
	wrapped, err := v.MarshalJSON()
	if err != nil {
		return Key{}, false
	}
	var envelope struct{ AsJSON string }
	var k Key
	if json.Unmarshal(wrapped, &envelope) != nil || json.Unmarshal([]byte(envelope.AsJSON), &k) != nil || k.Suite == "" {
		return Key{}, false
	}
	return k, true
}
