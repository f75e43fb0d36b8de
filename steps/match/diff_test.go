package match

import (
	"fmt"
	"strings"
	"testing"
)

type prunedDiffCase struct {
	name      string
	want, got string // want is YAML, got is JSON
	expect    string
}

// prunedDiffCases hold the diff text PrunedDiff must print for each pair.
var prunedDiffCases = []prunedDiffCase{
	{name: "equal", want: "spec: {a: 1}", got: `{"spec":{"a":1}}`},
	{name: "extra got keys pruned away", want: "spec: {a: 1}", got: `{"kind":"X","spec":{"a":1,"b":2}}`},
	{name: "equal by matching rules, not spelling",
		want: "spec: {cpu: 1, mem: 1Gi, n: 2, gone: ~, id: <any>, t: 2024-01-02T03:04:05Z}",
		got:  `{"spec":{"cpu":"1000m","mem":"1024Mi","n":2.0,"id":"x7","t":"2024-01-02T03:04:05Z"}}`},
	// go-difflib aligns on the longest common run ("- count: 1"), so
	// the surplus element shows as inserted before it; the mismatch
	// paths Subset reports beside the diff name the changed fields.
	{name: "only asserted keys shown",
		want: `
metadata: {name: c1, annotations: {resource.kubernetes.io/x: a}}
spec:
  requests:
  - name: gpu
    count: 1
  nodeName: ~
status: {allocation: <any>, shares: 1}
`,
		got: `{"apiVersion":"v1","kind":"X",
"metadata":{"name":"c1","uid":"u","annotations":{"resource.kubernetes.io/x":"b","other":"o"}},
"spec":{"requests":[{"name":"gpu","count":2,"mode":"All"},{"name":"tpu","count":1,"mode":"All"}],"nodeName":"n"},
"status":{"allocation":{"big":1},"shares":"1000m"}}`,
		expect: `--- want
+++ got
@@ -1,12 +1,14 @@
 metadata:
   annotations:
-    resource.kubernetes.io/x: a
+    resource.kubernetes.io/x: b
   name: c1
 spec:
-  nodeName: null
+  nodeName: "n"
   requests:
+    - count: 2
+      name: gpu
     - count: 1
-      name: gpu
+      name: tpu
 status:
   allocation: <any>
   shares: 1
`},
	{name: "missing key and null in got",
		want: "a: x\nb: y\nc: <any>", got: `{"b":"y","c":null}`,
		expect: `--- want
+++ got
@@ -1,3 +1,2 @@
-a: x
 b: "y"
-c: <any>
+c: null
`},
	{name: "an empty value for <any> is shown", want: "a: <any>\nb: <any>", got: `{"a":"","b":{}}`,
		expect: `--- want
+++ got
@@ -1,2 +1,2 @@
-a: <any>
-b: <any>
+a: ""
+b: {}
`},
	{name: "type mismatch shows whole got value", want: "spec: {a: 1}", got: `{"spec":"x"}`,
		expect: `--- want
+++ got
@@ -1,2 +1 @@
-spec:
-  a: 1
+spec: x
`},
	{name: "want empty list shows surplus elements in full", want: "l: []", got: `{"l":[{"a":1}]}`,
		expect: `--- want
+++ got
@@ -1 +1,2 @@
-l: []
+l:
+  - a: 1
`},
}

func TestPrunedDiff(t *testing.T) {
	for _, tt := range prunedDiffCases {
		t.Run(tt.name, func(t *testing.T) {
			checkPrunedDiff(t, tt)
		})
	}
}

func checkPrunedDiff(t *testing.T, tt prunedDiffCase) {
	want, got := fromYAML(t, tt.want), fromJSON(t, tt.got)
	diff := PrunedDiff(want, got)
	if diff != tt.expect {
		t.Errorf("PrunedDiff =\n%s\nwant\n%s", diff, tt.expect)
	}
	// The diff is meant to accompany Subset's report, so the two must
	// agree on whether there is anything to report.
	if ms := Subset(want, got); (len(ms) == 0) != (diff == "") {
		t.Errorf("Subset found %d mismatches but diff empty = %v", len(ms), diff == "")
	}
}

// numbered returns lines "l1".."ln" each ending in a newline, with the lines
// listed in change replaced by "changed".
func numbered(n int, change ...int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("l%d", i)
		for _, c := range change {
			if c == i {
				line = "changed"
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, expect string
	}{
		{name: "equal", a: "x\ny\n", b: "x\ny\n", expect: ""},
		{name: "far apart changes get separate hunks", a: numbered(20), b: numbered(20, 2, 18),
			expect: "--- a\n+++ b\n" +
				"@@ -1,5 +1,5 @@\n l1\n-l2\n+changed\n l3\n l4\n l5\n" +
				"@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+changed\n l19\n l20\n"},
		{name: "changes within twice the context share a hunk", a: numbered(12), b: numbered(12, 3, 9),
			expect: "--- a\n+++ b\n@@ -1,12 +1,12 @@\n" +
				" l1\n l2\n-l3\n+changed\n l4\n l5\n l6\n l7\n l8\n-l9\n+changed\n l10\n l11\n l12\n"},
		{name: "insert into empty", a: "", b: "x\n", expect: "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"},
		{name: "delete everything", a: "x\ny\n", b: "", expect: "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{name: "insert in the middle keeps common lines", a: "a\nb\nc\n", b: "a\nb\nnew\nc\n",
			expect: "--- a\n+++ b\n@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff("a", "b", tt.a, tt.b); got != tt.expect {
				t.Errorf("unifiedDiff =\n%s\nwant\n%s", got, tt.expect)
			}
		})
	}
}
