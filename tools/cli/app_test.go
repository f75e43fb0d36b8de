package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, Streams{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestLintShippedSuites(t *testing.T) {
	code, out, errs := run(t, "lint")
	if code != 0 || !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("lint: code %d, out %q, err %q", code, out, errs)
	}
}

// A user's own suite directory with a typo fails lint with file:line.
func TestLintReportsFileAndLine(t *testing.T) {
	dir := t.TempDir()
	cells := "apiVersion: draconform.dev/v1alpha1\nkind: Cells\ncells:\n- name: defaults\n"
	bad := "apiVersion: draconform.dev/v1alpha1\nkind: Suite\nname: mine\ncells: [defaults]\ncases:\n- id: a\n  title: t\n  steps:\n  - expectSchedueld: {pod: p1}\n"
	for name, data := range map[string]string{"cells.yaml": cells, "mine.yaml": bad} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := run(t, "lint", "--suites", dir)
	// The file as the user named it, which an editor opens.
	want := filepath.Join(dir, "mine.yaml") + `:9: unknown key "expectSchedueld" in step (did you mean expectScheduled?)`
	if code != 1 || !strings.Contains(errs, want) {
		t.Fatalf("code %d, stderr:\n%s\nwant a line %q", code, errs, want)
	}
}

func TestPlanListsCasesWithLabels(t *testing.T) {
	code, out, _ := run(t, "plan", "--suite", "feature-absent")
	if code != 0 {
		t.Fatalf("plan exit %d", code)
	}
	if !strings.Contains(out, "feature-absent/strict-write-rejected@defaults") || !strings.Contains(out, "labels: suite:feature-absent, cell:defaults") {
		t.Errorf("plan output lacks the case or its labels:\n%s", out)
	}
	if strings.Contains(out, "kep5004") {
		t.Errorf("--suite did not filter:\n%s", out)
	}
}

func TestSchemaIsJSONAndStrict(t *testing.T) {
	code, out, _ := run(t, "schema")
	if code != 0 {
		t.Fatalf("schema exit %d", code)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(out), &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	step := schema["$defs"].(map[string]any)["Step"].(map[string]any)
	if step["additionalProperties"] != false {
		t.Errorf("Step allows unknown keys")
	}
	if _, ok := step["properties"].(map[string]any)["expectClaim"]; !ok {
		t.Errorf("Step has no expectClaim property")
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, errs := run(t, "rnu"); code != 2 || !strings.Contains(errs, `unknown command "rnu"`) {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}

// The checked-in schema must be what the code generates (make lint checks
// the same; this keeps go test honest on its own).
func TestCheckedInSchemaIsCurrent(t *testing.T) {
	_, out, _ := run(t, "schema")
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != out {
		t.Error("docs/schema.json is stale: run make schema")
	}
}

// The generated documents must match the specs, as the schema must.
func TestCheckedInDocsAreCurrent(t *testing.T) {
	if code, _, errs := run(t, "docs", "--check", "--out", filepath.Join("..", "..", "docs")); code != 0 {
		t.Errorf("docs --check: %s", errs)
	}
}

// A golden flag without the table it acts on is refused before anything
// runs: the run would otherwise be reported checked when nothing was.
func TestGoldenFlagsNeedTheTable(t *testing.T) {
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--golden-as", "kind=kind-kep"}, "--golden-as needs --golden"},
		{[]string{"run", "--update-golden"}, "--update-golden needs --golden"},
	} {
		code, _, errs := run(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.says) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.says)
		}
	}
}
