package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parseArgsCases are the command lines containerd and runc's own users
// give, and the tricky spellings among them, with what parseArgs must read.
var parseArgsCases = []struct {
	name string
	args []string
	want invocation
}{
	{
		// What containerd's shim runs through go-runc.
		name: "containerd create",
		args: []string{"--root", "/run/containerd/runc/k8s.io", "--log", "/x/log.json", "--log-format", "json",
			"--systemd-cgroup", "create", "--bundle", "/x/bundle", "--pid-file", "/x/init.pid", "--console-socket", "/x/pty.sock", "abc"},
		want: invocation{subcommand: "create", bundle: "/x/bundle", logFile: "/x/log.json", logFormat: "json"},
	},
	{
		name: "global values that look like subcommands",
		args: []string{"--root", "create", "--log=exec", "-log-format", "run", "--rootless", "false", "delete", "-f", "abc"},
		want: invocation{subcommand: "delete", logFile: "exec", logFormat: "run"},
	},
	{
		name: "short bundle with equals after the id",
		args: []string{"run", "-d", "abc", "-b=/b"},
		want: invocation{subcommand: "run", bundle: "/b"},
	},
	{
		name: "single-dash long bundle and last one wins",
		args: []string{"--debug", "create", "-bundle", "/first", "--bundle=/second", "abc"},
		want: invocation{subcommand: "create", bundle: "/second"},
	},
	{
		name: "bundle-looking value of another flag",
		args: []string{"create", "--pid-file", "--bundle", "abc"},
		want: invocation{subcommand: "create"},
	},
	{
		name: "default bundle",
		args: []string{"create", "abc"},
		want: invocation{subcommand: "create"},
	},
	{
		name: "flags after terminator are positional",
		args: []string{"create", "abc", "--", "--bundle", "/b"},
		want: invocation{subcommand: "create"},
	},
	{
		name: "containerd exec",
		args: []string{"--root", "/r", "--log", "/l", "--log-format", "json", "exec", "--detach", "--pid-file", "/x/p.pid",
			"--process", "/tmp/runc-process123", "abc"},
		want: invocation{subcommand: "exec", processFile: "/tmp/runc-process123", logFile: "/l", logFormat: "json"},
	},
	{
		name: "short process flag",
		args: []string{"exec", "-t", "-p", "/p.json", "abc"},
		want: invocation{subcommand: "exec", processFile: "/p.json"},
	},
	{
		// exec stops at the container id: the rest is the command.
		name: "process flag inside the container command",
		args: []string{"exec", "--cap", "CAP_KILL", "-e", "A=-p", "abc", "grep", "-p", "x"},
		want: invocation{subcommand: "exec"},
	},
	{
		name: "global flags only",
		args: []string{"--version"},
		want: invocation{},
	},
	{
		name: "terminator before subcommand",
		args: []string{"--root", "/r", "--", "create", "-b", "/b", "abc"},
		want: invocation{subcommand: "create", bundle: "/b"},
	},
	{
		name: "empty",
		want: invocation{},
	},
}

func TestParseArgs(t *testing.T) {
	for _, tt := range parseArgsCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseArgs(tt.args); got != tt.want {
				t.Errorf("parseArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

const configJSON = `{
  "ociVersion": "1.2.1",
  "futureTopLevel": {"keep": [1, 2.50, "<&>"]},
  "process": {
    "user": {"uid": 0, "gid": 0},
    "args": ["/sleeper", "a<b"],
    "oomScoreAdj": -998,
    "futureProcessField": 12345678901234567890,
    "capabilities": {
      "bounding": ["CAP_CHOWN", "CAP_SYS_RESOURCE", "CAP_KILL"],
      "effective": ["CAP_SYS_RESOURCE"],
      "inheritable": null,
      "permitted": ["CAP_CHOWN", "CAP_SYS_RESOURCE"],
      "ambient": ["CAP_SYS_RESOURCE"],
      "futureSet": ["CAP_SYS_RESOURCE", "CAP_NET_RAW"],
      "futureScalar": 7
    }
  },
  "linux": {"cgroupsPath": "/k8s/x", "resources": {"devices": [{"allow": false, "access": "rwm"}]}}
}`

func TestRewriteCreate(t *testing.T) {
	bundle := t.TempDir()
	path := filepath.Join(bundle, "config.json")
	writeFile(t, path, configJSON, 0o640)

	if err := rewriteHere([]string{"--root", "/r", "create", "--bundle", bundle, "id"}); err != nil {
		t.Fatal(err)
	}

	got := readJSON(t, path)
	want := readJSONString(t, configJSON)
	process := want["process"].(map[string]any)
	process["oomScoreAdj"] = json.Number("0")
	process["capabilities"] = map[string]any{
		"bounding":     []any{"CAP_CHOWN", "CAP_KILL"},
		"effective":    []any{},
		"inheritable":  nil,
		"permitted":    []any{"CAP_CHOWN"},
		"ambient":      []any{},
		"futureSet":    []any{"CAP_NET_RAW"},
		"futureScalar": json.Number("7"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rewritten config:\n got %v\nwant %v", got, want)
	}
	raw, _ := os.ReadFile(path)
	for _, s := range []string{"12345678901234567890", "2.50", `"<&>"`, `"a<b"`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("rewritten config lost the literal %s:\n%s", s, raw)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", info.Mode().Perm())
	}
}

func TestRewriteRunDefaultBundle(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, "config.json", `{"process":{"oomScoreAdj":-1,"capabilities":{"bounding":["CAP_SYS_RESOURCE"]}}}`, 0o600)

	if err := rewriteHere([]string{"run", "id"}); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, filepath.Join(dir, "config.json"))
	want := readJSONString(t, `{"process":{"oomScoreAdj":0,"capabilities":{"bounding":[]}}}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRewriteLeavesUnaffectedFilesAlone(t *testing.T) {
	for name, doc := range map[string]string{
		"nothing to drop":   `{ "process" : {"oomScoreAdj": 5, "capabilities": {"bounding": ["CAP_KILL"]}}, "x": "<"}`,
		"zero oom score":    `{"process": {"oomScoreAdj": 0}}`,
		"no process":        `{"ociVersion": "1.0.0"}`,
		"null process":      `{"process": null}`,
		"null capabilities": `{"process": {"capabilities": null, "oomScoreAdj": null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			bundle := t.TempDir()
			path := filepath.Join(bundle, "config.json")
			writeFile(t, path, doc, 0o600)
			if err := rewriteHere([]string{"create", "-b", bundle, "id"}); err != nil {
				t.Fatal(err)
			}
			if raw, _ := os.ReadFile(path); string(raw) != doc {
				t.Errorf("file changed:\n got %s\nwant %s", raw, doc)
			}
		})
	}
}

func TestRewriteExecProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "process.json")
	doc := `{"terminal":false,"args":["sh"],"env":["A=1"],"cwd":"/","oomScoreAdj":-997,` +
		`"capabilities":{"bounding":["CAP_SYS_RESOURCE","CAP_KILL"],"effective":["CAP_KILL"]},"futureField":{"a":true}}`
	writeFile(t, path, doc, 0o600)

	if err := rewriteHere([]string{"--log-format", "json", "exec", "--detach", "--process", path, "id"}); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, path)
	want := readJSONString(t, `{"terminal":false,"args":["sh"],"env":["A=1"],"cwd":"/","oomScoreAdj":0,`+
		`"capabilities":{"bounding":["CAP_KILL"],"effective":["CAP_KILL"]},"futureField":{"a":true}}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRewriteIgnoresOtherSubcommands(t *testing.T) {
	// No bundle exists here; any attempt to read config.json would fail.
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"--root", "/r", "delete", "--force", "id"},
		{"state", "id"},
		{"exec", "id", "sh", "-c", "true"},
		{"--version"},
		nil,
	} {
		if err := rewriteHere(args); err != nil {
			t.Errorf("rewriteHere(%q) = %v, want nil", args, err)
		}
	}
}

func TestRewriteErrors(t *testing.T) {
	dir := t.TempDir()
	if err := rewriteHere([]string{"create", "-b", filepath.Join(dir, "missing"), "id"}); err == nil {
		t.Error("missing bundle: want error")
	}
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, `{"oomScoreAdj": "low"}`, 0o600)
	if err := rewriteHere([]string{"exec", "-p", bad, "id"}); err == nil {
		t.Error("non-numeric oomScoreAdj: want error")
	}
	writeFile(t, filepath.Join(dir, "config.json"), `{"process": {"capabilities": ["CAP_KILL"]}}`, 0o600)
	if err := rewriteHere([]string{"create", "-b", dir, "id"}); err == nil {
		t.Error("capabilities not an object: want error")
	}
	writeFile(t, bad, `[1]`, 0o600)
	if err := rewriteHere([]string{"exec", "-p", bad, "id"}); err == nil {
		t.Error("non-object document: want error")
	}
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readJSONString(t, string(raw))
}

// readJSONString keeps numbers as written, so a float or a large integer
// mangled by the rewrite shows up as a difference.
func readJSONString(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return m
}

func TestMissingFromBoundingSet(t *testing.T) {
	// This machine: every capability up to CAP_CHECKPOINT_RESTORE (40) but
	// CAP_SYS_RESOURCE (24).
	got, err := missingFromBoundingSet("Name:\tx\nCapEff:\t0000000000000000\nCapBnd:\t000001fffeffffff\n")
	if err != nil || len(got) != 1 || !got["CAP_SYS_RESOURCE"] {
		t.Errorf("got %v, %v", got, err)
	}
	got, err = missingFromBoundingSet("CapBnd:\t00000000a80425fb\n") // Docker's default set
	if err != nil || got["CAP_CHOWN"] || !got["CAP_SYS_ADMIN"] || !got["CAP_NET_ADMIN"] || got["CAP_NET_RAW"] {
		t.Errorf("docker default: %v, %v", got, err)
	}
	if _, err := missingFromBoundingSet("Name:\tx\n"); err == nil {
		t.Error("a status without CapBnd must be an error")
	}
	if _, err := missingFromBoundingSet("CapBnd:\tzz\n"); err == nil {
		t.Error("a malformed CapBnd must be an error")
	}
}
