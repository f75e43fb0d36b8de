package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// featuresWithSeccomp is `runc features` of runc v1.5.3 built with the
// seccomp tag (as tools/cluster/localnode builds it) against Debian 12's
// libseccomp 2.5.4, on this machine's kernel: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// is known but not supported.
var featuresWithSeccomp = readTestdata("runc-v1.5.3-seccomp-features.json")

// containerdDefault is the profile containerd v2.4.2's CRI plugin gives
// a container on amd64 (contrib/seccomp.DefaultProfile), encoded.
var containerdDefault = readTestdata("containerd-v2.4.2-default-profile.json")

func readTestdata(name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(data)
}

// featuresWithoutSeccomp is `runc features` of runc v1.5.3 built without
// the tag: no linux.seccomp at all.
const featuresWithoutSeccomp = `{"ociVersionMin":"1.0.0","linux":{"namespaces":["pid"]},"annotations":{"org.opencontainers.runc.version":"1.5.3"}}`

// A profile as containerd's default is (no flags), shortened.
const defaultProfile = `{"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":1,"architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_X86","SCMP_ARCH_X32"],` +
	`"syscalls":[{"names":["accept","read","write","not_a_syscall_yet"],"action":"SCMP_ACT_ALLOW"},` +
	`{"names":["personality"],"action":"SCMP_ACT_ALLOW","args":[{"index":0,"value":0,"op":"SCMP_CMP_EQ"}]}]}`

// testWrapper runs as on the machine the wrapper was written for, before a
// runc whose `runc features` is features; notes collects what it names.
func testWrapper(t *testing.T, features string, notes *[]string) *wrapper {
	t.Helper()
	return &wrapper{
		unavailable: map[string]bool{"CAP_SYS_RESOURCE": true},
		seccomp:     func() (seccompSupport, error) { return parseFeatures([]byte(features)) },
		note:        func(msg string) { *notes = append(*notes, msg) },
	}
}

// rewriteHere edits for a runc with seccomp, as the rewrite tests of
// capabilities and oom_score_adj expect.
func rewriteHere(args []string) error {
	var discard []string
	w := &wrapper{
		unavailable: map[string]bool{"CAP_SYS_RESOURCE": true},
		seccomp:     func() (seccompSupport, error) { return parseFeatures([]byte(featuresWithSeccomp)) },
		note:        func(msg string) { discard = append(discard, msg) },
	}
	return w.rewrite(parseArgs(args))
}

// The runtime's default profile reaches runc byte for byte: runc here
// applies all of it, so nothing is dropped or named.
func TestDefaultProfileIsKept(t *testing.T) {
	bundle := t.TempDir()
	path := filepath.Join(bundle, "config.json")
	config := `{"ociVersion":"1.2.0","linux":{"namespaces":[{"type":"pid"}],"seccomp":` + containerdDefault + `}}`
	writeFile(t, path, config, 0o600)
	var notes []string
	if err := testWrapper(t, featuresWithSeccomp, &notes).rewrite(parseArgs([]string{"create", "--bundle", bundle, "id"})); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != config {
		t.Errorf("the default profile was changed:\n%s", raw)
	}
	if len(notes) != 0 {
		t.Errorf("named drops for a profile runc applies whole: %q", notes)
	}
}

// Only the parts runc says it cannot apply here go, each named: a filter
// flag the kernel or libseccomp lacks, an architecture runc does not know.
func TestProfileLosesOnlyWhatRuncRefusesNamed(t *testing.T) {
	bundle := t.TempDir()
	path := filepath.Join(bundle, "config.json")
	profile := strings.Replace(defaultProfile, `"architectures":["SCMP_ARCH_X86_64",`, `"flags":["SECCOMP_FILTER_FLAG_SPEC_ALLOW","SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"],"architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_FUTURE",`, 1)
	writeFile(t, path, `{"ociVersion":"1.2.0","linux":{"seccomp":`+profile+`}}`, 0o600)
	var notes []string
	if err := testWrapper(t, featuresWithSeccomp, &notes).rewrite(parseArgs([]string{"create", "--bundle", bundle, "id"})); err != nil {
		t.Fatal(err)
	}
	want := readJSONString(t, `{"ociVersion":"1.2.0","linux":{"seccomp":`+
		strings.Replace(defaultProfile, `"architectures":[`, `"flags":["SECCOMP_FILTER_FLAG_SPEC_ALLOW"],"architectures":[`, 1)+`}}`)
	if got := readJSON(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("profile after the wrapper:\n got %v\nwant %v", got, want)
	}
	if len(notes) != 1 {
		t.Fatalf("notes = %q; want one naming both drops", notes)
	}
	for _, s := range []string{path, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", "libseccomp 2.5.4", "SCMP_ARCH_FUTURE"} {
		if !strings.Contains(notes[0], s) {
			t.Errorf("the note does not name %s: %s", s, notes[0])
		}
	}
	for _, s := range []string{"SPEC_ALLOW", "SCMP_ARCH_X86_64"} {
		if strings.Contains(notes[0], s) {
			t.Errorf("the note names %s, which was kept: %s", s, notes[0])
		}
	}
}

// What cannot be dropped without changing what the container may do, or
// a runc that applies no profile at all, is refused, named, and the
// document is left as it was.
func TestProfileRuncCannotApplyIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name, features, profile, want string
	}{
		{"runc without seccomp", featuresWithoutSeccomp, defaultProfile, "libseccomp-dev"},
		{"seccomp disabled", `{"linux":{"seccomp":{"enabled":false}}}`, defaultProfile, "does not run the container unconfined"},
		{"unknown default action", featuresWithSeccomp, strings.Replace(defaultProfile, `"defaultAction":"SCMP_ACT_ERRNO"`, `"defaultAction":"SCMP_ACT_FUTURE"`, 1), "default action SCMP_ACT_FUTURE"},
		{"unknown action", featuresWithSeccomp, strings.Replace(defaultProfile, `"action":"SCMP_ACT_ALLOW"}`, `"action":"SCMP_ACT_FUTURE"}`, 1), "action SCMP_ACT_FUTURE (of the rule for accept, read, write, not_a_syscall_yet)"},
		{"unknown operator", featuresWithSeccomp, strings.Replace(defaultProfile, `SCMP_CMP_EQ`, `SCMP_CMP_FUTURE`, 1), "operator SCMP_CMP_FUTURE (of the rule for personality)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bundle := t.TempDir()
			path := filepath.Join(bundle, "config.json")
			config := `{"linux":{"seccomp":` + tt.profile + `}}`
			writeFile(t, path, config, 0o600)
			var notes []string
			err := testWrapper(t, tt.features, &notes).rewrite(parseArgs([]string{"create", "--bundle", bundle, "id"}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want a refusal naming %q", err, tt.want)
			}
			if got := readJSON(t, path); !reflect.DeepEqual(got, readJSONString(t, config)) {
				t.Errorf("the document was changed: %v", got)
			}
		})
	}
}

// A document without a profile does not ask runc what it supports.
func TestNoProfileAsksNothing(t *testing.T) {
	for _, doc := range []string{`{"linux":{"namespaces":[]}}`, `{"linux":{"seccomp":null}}`, `{"linux":null}`, `{}`} {
		bundle := t.TempDir()
		writeFile(t, filepath.Join(bundle, "config.json"), doc, 0o600)
		w := &wrapper{seccomp: func() (seccompSupport, error) { t.Fatalf("%s: runc asked", doc); return seccompSupport{}, nil }}
		if err := w.rewrite(parseArgs([]string{"create", "-b", bundle, "id"})); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestParseFeatures(t *testing.T) {
	s, err := parseFeatures([]byte(featuresWithSeccomp))
	if err != nil || s.Enabled == nil || !*s.Enabled || s.libseccomp != "2.5.4" || len(s.SupportedFlags) != 3 || len(s.Archs) != 18 {
		t.Errorf("with seccomp: %+v, %v", s, err)
	}
	s, err = parseFeatures([]byte(featuresWithoutSeccomp))
	if err != nil || s.Enabled != nil {
		t.Errorf("without seccomp: %+v, %v", s, err)
	}
	if _, err := parseFeatures([]byte("not json")); err == nil {
		t.Error("not json: want an error")
	}
}
