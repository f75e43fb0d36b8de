package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParse feeds the driver's config parser hostile files. Every input
// must end in a config or in problems that each name config.yaml and a line
// of it, never in a panic, and in bounded time and memory; and a config
// that parses must survive what the deployment does with it: Marshal into
// the ConfigMap, which the driver parses back into the same config.
// Without -fuzz it runs its seeds as a unit test; `make fuzz` fuzzes it
// for $(FUZZTIME).
func FuzzParse(f *testing.F) {
	names := make([]string, 0, len(malformedConfigs))
	for name := range malformedConfigs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f.Add([]byte(malformedConfigs[name].yaml))
	}
	shipped, err := Marshal(Default())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(shipped)
	f.Add([]byte("devices:\n- name: a\n  attributes:\n    model: x100\n    quoted: \"42\"\n    cores: 8\n    fast: true\n"))
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	for _, data := range hostileConfigs(string(shipped)) {
		// The huge ones run as unit tests: mutating them would take
		// the fuzzer's whole budget.
		if !fuzzing || len(data) <= 8<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		cfg, err := Parse(data)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if limit := 2*time.Second + time.Duration(len(data))*time.Second/(1<<20); took > limit {
			t.Errorf("took %v for %d bytes (bound %v)", took, len(data), limit)
		}
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<20+200*len(data)); alloc > limit {
			t.Errorf("allocated %d bytes for %d bytes of input (bound %d)", alloc, len(data), limit)
		}
		if err != nil {
			var probs Problems
			if !errors.As(err, &probs) || len(probs) == 0 {
				t.Fatalf("error is not a list of problems at file:line: %v", err)
			}
			for _, p := range probs {
				if p.File != "config.yaml" || p.Line < 1 || p.Line > lines(data)+1 {
					t.Errorf("problem is not at a line of config.yaml (%d lines): %q", lines(data), p)
				}
			}
			return
		}
		rendered, err := Marshal(cfg)
		if err != nil {
			t.Fatalf("a config that parses does not marshal: %v", err)
		}
		again, err := Parse(rendered)
		if err != nil {
			t.Fatalf("a config that parses, marshalled, does not parse: %v\n%s", err, rendered)
		}
		// Marshal leaves out empty attributes and capacity, which mean
		// what none do.
		if diff := cmp.Diff(cfg, again, quantityEqual, cmp.AllowUnexported(Attribute{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Parse(Marshal(cfg)) differs (-parsed +again):\n%s\n%s", diff, rendered)
		}
	})
}

// lines counts the line breaks YAML knows: CR, LF, CR LF, NEL, LS and PS
// (CR LF counts twice, which only makes the bound looser).
func lines(data []byte) int {
	n := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r"))
	for _, brk := range []string{"\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(data, []byte(brk))
	}
	return n
}

// hostileConfigs returns seeds that attack a YAML reader, built on valid.
func hostileConfigs(valid string) [][]byte {
	bomb := "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [*a%d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	seeds := []string{
		// Billion laughs, at the top and where the decoder reads it.
		bomb,
		"devices:\n- &d {name: a, attributes: {x: 1}}\n- *d\n",
		"devices: &l [*l]\n", "devices:\n- {name: a, capacity: &c {x: *c}}\n",
		"devices: *missing\n",
		// Merge keys, anchors on keys, keys of other kinds.
		"devices:\n- &d {name: a}\n- <<: *d\n  name: b\n",
		"devices:\n- &k name: a\n  *k : b\n",
		"devices:\n- name: a\n  attributes: {1: x, 2.5: y, null: z, true: w}\n",
		"devices:\n- name: a\n  attributes: {[a]: x}\n",
		"devices:\n- name: a\n  capacity: {" + strings.Repeat("k", 100_000) + ": {value: 1}}\n",
		// Deep nesting, below and above yaml.v3's limit of 10000.
		"devices: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n",
		"devices: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
		"devices:\n- name: a\n  attributes: {x: " + strings.Repeat("{a: ", 10001) + "1" + strings.Repeat("}", 10001) + "}\n",
		// Huge scalars, below and above MaxFileSize.
		"devices:\n- name: " + strings.Repeat("a", MaxFileSize-100) + "\n",
		"devices:\n- name: " + strings.Repeat("a", 3<<20) + "\n",
		// Quantities at the edges.
		"devices:\n- name: a\n  capacity: {x: {value: 9223372036854775807Ei, requestPolicy: {default: 1n, validRange: {min: 1n, max: 9Ei, step: 1n}}}}\n",
		"devices:\n- name: a\n  capacity: {x: {value: 1e308, requestPolicy: {validValues: [0.000000001, 1e300]}}}\n",
		// Bytes that are no text.
		valid + "x: \xff\xfe\n", "devices:\n- name: \xc3\x28\n", valid + "\x00", "\x00", "\xef\xbb\xbf" + valid, "\xfe\xff\x00d", valid + "\x1b[31m\n",
		// Tabs where YAML does not allow them.
		"\t" + valid, strings.ReplaceAll(valid, "\n  ", "\n\t"),
		// Several documents, null documents, empty ones.
		valid + "---\n" + valid, valid + "---\n", valid + "---\n~\n", "---\n---\n", "~\n", "null\n", "# nothing\n", "[]\n", "x\n", valid + "---\n{a: [\n",
		// Tags.
		"devices: !!binary ZGV2aWNlcw==\n", "devices:\n- name: !!int 1\n", "!!map {devices: !custom []}\n",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}
