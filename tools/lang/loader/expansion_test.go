package loader_test

import (
	"strings"
	"testing"
	"time"
)

// listOf is a flow list of n copies of item.
func listOf(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

// A suite whose variables multiply one another (each level repeats the
// one before) is refused at load, at the variable's line, before anything
// runs: 40 KiB here would expand to 2*10^9 nodes per case instance.
func TestVariablesThatMultiplyAreRefused(t *testing.T) {
	data := head + "cells: [defaults]\nvars:\n  a: " + listOf("x", 2000) + "\n" +
		"cases:\n- id: a\n  title: t\n  vars:\n    b: " + listOf(`"${a}"`, 1000) + "\n" +
		"  steps:\n  - create: {fixture: pod, name: p1, vars: {quantity: \"${b}\"}}\n"
	start := time.Now()
	got := loadSuite(t, data)
	if want := "suites/s.yaml:11: case a: variable b expands to more than 1048576 YAML nodes"; !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant a problem %q", got, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}
