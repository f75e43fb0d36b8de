package providers

import (
	"context"
	"strings"
	"testing"
)

// Every name Names lists is one Build knows, and a name it does not list
// is one Build refuses: the command line refuses names by Known before any
// build, so the two must agree.
func TestNamesAreWhatBuildKnows(t *testing.T) {
	for _, n := range Names() {
		if !Known(n) {
			t.Errorf("%s listed but not Known", n)
		}
	}
	for _, n := range []string{"lokal", "prototype-nope", "", "Local"} {
		if n != "" && Known(n) {
			t.Errorf("%q is Known", n)
		}
	}
	_, err := Build(context.Background(), Config{Name: "prototype-nope"})
	if err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Errorf("Build(prototype-nope): %v", err)
	}
	for _, n := range []string{"prototype-explicit-name-only", "prototype-static", "kubeconfig"} {
		if !Known(n) {
			t.Errorf("%s not Known", n)
		}
	}
}
