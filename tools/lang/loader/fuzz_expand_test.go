package loader_test

import (
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/suites"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// FuzzExpandSuite fuzzes what a suite's variables do at run time: a suite
// the loader accepts is expanded as a case instance's scope is (builtins,
// suite vars, case vars) and each fixture rendered in it, which must end
// in bounded time and memory, with no panic, and any error must name its
// line. `make fuzz` runs it.
func FuzzExpandSuite(f *testing.F) {
	for _, name := range shipped(f, suites.FS) {
		f.Add(shippedFile(f, suites.FS, name))
	}
	f.Add([]byte(head + "cells: [defaults]\nvars:\n  a: " + listOf("x", 2000) + "\ncases:\n- id: a\n  title: t\n  vars:\n    b: " +
		listOf(`"${a}"`, 400) + "\n  steps:\n  - create: {fixture: pod, name: p1, vars: {quantity: \"${b}\"}}\n"))
	f.Add([]byte(suite("- id: a\n  title: t\n  vars: {q: \"${namespace}${namespace}\"}\n  steps:\n  - create: {fixture: pod, name: p1, vars: {quantity: \"${q}\"}}\n")))
	ffs := fstest.MapFS{"pod.yaml": {Data: []byte(podFixture)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		sfs := fstest.MapFS{"cells.yaml": {Data: []byte(cells)}, "s.yaml": {Data: data}}
		b, err := loader.Load(sfs, ffs, steps.Kinds())
		if err != nil {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for _, s := range b.Suites {
			for i := range s.Cases {
				expandCase(t, b, s, &s.Cases[i])
			}
		}
		runtime.ReadMemStats(&after)
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("expanding took %v", took)
		}
		// A case instance stays under spec.MaxExpandedNodes nodes of some
		// 100 bytes each, and its bytes under spec.MaxExpandedBytes.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<30 {
			t.Errorf("expanding allocated %d bytes", alloc)
		}
	})
}

func expandCase(t *testing.T, b *loader.Bundle, s *spec.Suite, c *spec.Case) {
	check := func(what string, err error) {
		if err != nil && !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: an error that names no line: %v", what, err)
		}
	}
	scope, err := spec.NewScope(map[string]string{"prefix": "p", "domain": "d", "driver": "d", "namespace": "n", "run": "r"}).With(s.Vars)
	if err == nil {
		scope, err = scope.With(c.Vars)
	}
	check(c.ID, err)
	if err != nil {
		return
	}
	for _, f := range b.Fixtures {
		_, err := scope.ExpandNode(&f.Object)
		check(f.Name, err)
	}
}
