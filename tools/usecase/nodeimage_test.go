package usecase

import (
	"os"
	"strings"
	"testing"
)

// The CoreDNS the node image preloads is the one tools/build/corednsbin pins; the
// build cache is keyed by corednsVersion, so the two must move together.
func TestCoreDNSVersionIsPinned(t *testing.T) {
	data, err := os.ReadFile("../build/corednsbin/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "github.com/coredns/coredns "+corednsVersion+"\n") {
		t.Errorf("tools/build/corednsbin/go.mod does not require github.com/coredns/coredns %s:\n%s", corednsVersion, data)
	}
}
