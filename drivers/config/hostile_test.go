package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Every config that does not load is refused with problems at
// config.yaml:line, also where the YAML parser or the JSON decoder says
// no line, or a wrong one.
func TestProblemsNameTheirLine(t *testing.T) {
	bomb := "devices: []\n" + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [*a%d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"parser error", "devices:\n- name: a\n - name: b\n", "config.yaml:3: decode: not valid YAML: did not find expected key"},
		{"end without a line break", "devices: [", "config.yaml:1: decode: not valid YAML: did not find expected node content"},
		{"invalid UTF-8", "devices:\n- name: a\xffb\n", "config.yaml:2: decode: not valid YAML: invalid leading UTF-8 octet (byte 18)"},
		{"NUL", "devices:\n\n- name: a\x00\n", "config.yaml:3: decode: not valid YAML: control characters are not allowed (byte 19)"},
		{"unknown anchor", "devices:\n- *d\n", "config.yaml:2: decode: not valid YAML: unknown anchor 'd' referenced"},
		{"second document", "devices:\n- name: a\n---\ndevices: []\n", "config.yaml:4: decode: a second YAML document: a config file holds one"},
		{"alias inside the node it names", "devices:\n- name: a\n  capacity: &c {x: *c}\n",
			"config.yaml:3: decode: error converting YAML to JSON: yaml: anchor 'c' value contains itself"},
		{"billion laughs", bomb, "config.yaml:3: decode: error converting YAML to JSON: yaml: document contains excessive aliasing"},
		{"key that is a list", "devices:\n- name: a\n  attributes:\n    x: 1\n    [y]: 2\n", "config.yaml:5: decode: error converting YAML to JSON: yaml: invalid map key: []interface {}{true}"},
		{"type error in the second device", "devices:\n- name: a\n- name: b\n  allowMultipleAllocations: [x]\n",
			"config.yaml:4: decode: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field Device.devices.allowMultipleAllocations of type bool"},
		{"key in other case", "devices:\n- name: a\n  capacity: {x: {value: 1}}\n  Capacity: {y: {value: 2}}\n",
			"config.yaml:4: decode: unknown field \"Capacity\" (names are case-sensitive: capacity)"},
		{"too large", "devices:\n- name: " + strings.Repeat("a", MaxFileSize) + "\n", "config.yaml:1: larger than 1048576 bytes (1 MiB), the most a ConfigMap holds"},
		{"capacity name with brackets and dots", "devices:\n- name: a\n  capacity:\n    x: {value: 1}\n    a.b/c]d: {value: 1}\n",
			`config.yaml:5: devices[0].capacity[a.b/c]d]: Invalid value: "a.b/c]d": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
}

// A huge config file is read only up to the bound (sparse: it takes no
// disk).
func TestLoadReadsAtMostMaxFileSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("devices:\n- name: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 256<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	if want := path + ":1: larger than 1048576 bytes"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v, want %s...", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading a 256 MiB file allocated %d bytes", alloc)
	}
}

// Thousands of problems in one map cost no more than the map: each
// problem's line is found through an index of the map's keys, built once
// per map, not a scan of the map per problem. Counted, not timed: a time
// limit fails on a busy machine and passes a slow algorithm on a fast one.
func TestManyProblemsIndexEachMapOnce(t *testing.T) {
	doc := capacityMap(20_000)
	root, perr := document("config.yaml", doc)
	if perr != nil {
		t.Fatal(perr)
	}
	at := newLocator(root)
	for i := range 20_000 {
		if got, want := at.line(fmt.Sprintf("devices[0].capacity[a-%d]", i)), i+4; got != want {
			t.Fatalf("capacity a-%d found at line %d, want %d", i, got, want)
		}
		// The root, the device and its capacity: three maps, three indexes.
		if at.indexed > 3 {
			t.Fatalf("%d lines looked up through %d key indexes: a map's keys are indexed again per problem", i+1, at.indexed)
		}
	}
	_, err := Parse(doc)
	probs, _ := err.(Problems)
	if want := bytes.Count(doc, []byte("\n")) - 3; len(probs) < want || probs[len(probs)-1].Line != want+3 {
		t.Fatalf("%d problems for %d entries", len(probs), want)
	}
}

// capacityMap is a device whose capacity map has n entries, each missing
// its unit: n problems.
func capacityMap(n int) []byte {
	var b strings.Builder
	b.WriteString("devices:\n- name: a\n  capacity:\n")
	for i := range n {
		fmt.Fprintf(&b, "    a-%d: {value: 1}\n", i)
	}
	return []byte(b.String())
}
