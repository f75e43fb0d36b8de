package shards

import (
	"slices"
	"testing"
)

// Each shard's environment holds its own request, however the shared
// environment was built: one with room to spare (as Env's append leaves
// it) once gave two shards the same request, and two processes ran one
// part of a cell in one folder.
func TestEachShardGetsItsOwnRequest(t *testing.T) {
	shared := make([]string, 1, 8)
	shared[0] = "PATH=/bin"
	a := childEnv(shared, "/out/a.request.json")
	b := childEnv(shared, "/out/b.request.json")
	if !slices.Contains(a, RequestEnv+"=/out/a.request.json") || slices.Contains(a, RequestEnv+"=/out/b.request.json") {
		t.Errorf("the first shard's environment lost its request to the second's: %q", a)
	}
	if !slices.Contains(b, RequestEnv+"=/out/b.request.json") {
		t.Errorf("the second shard's environment: %q", b)
	}
	if len(shared) != 1 || shared[:cap(shared)][1] != "" {
		t.Errorf("the shared environment was written to: %q", shared[:cap(shared)])
	}
}
