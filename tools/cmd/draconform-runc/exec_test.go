package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// buildWrapper builds this command into a folder beside a fake runc that
// answers `runc features` with features and records the other command
// lines it is given.
func buildWrapper(t *testing.T, features string) (wrapperPath, runcCalls string) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "draconform-runc"), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("building draconform-runc: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(dir, "features.json"), features, 0o644)
	runcCalls = filepath.Join(dir, "runc-calls")
	script := "#!/bin/sh\nif [ \"$1\" = features ]; then cat " + filepath.Join(dir, "features.json") + "; exit 0; fi\necho \"$*\" >> " + runcCalls + "\n"
	writeFile(t, filepath.Join(dir, "runc"), script, 0o755)
	return filepath.Join(dir, "draconform-runc"), runcCalls
}

// The wrapper as containerd's shim runs it (go-runc's command line, the
// node's DRACONFORM_RUNC_LOG): before a runc with seccomp it keeps the
// runtime's default profile, drops only the flag this kernel refuses and
// names it in the node's log and runc's; before a runc without seccomp it
// refuses the container, naming the package that is missing, where the
// shim reads runc's last error, and runc never runs.
func TestWrapperKeepsTheProfileOrRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds draconform-runc")
	}
	profile := strings.Replace(defaultProfile, `"architectures":[`, `"flags":["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"],"architectures":[`, 1)
	for _, tt := range []struct {
		name, features, wantProfile, wantLog string
		wantRunc                             bool
	}{
		{"runc with seccomp", featuresWithSeccomp, strings.Replace(profile, `"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"`, ``, 1), "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", true},
		{"runc without seccomp", featuresWithoutSeccomp, profile, "libseccomp-dev", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wrapper, calls := buildWrapper(t, tt.features)
			bundle, logs := t.TempDir(), t.TempDir()
			config := filepath.Join(bundle, "config.json")
			writeFile(t, config, `{"ociVersion":"1.2.0","linux":{"seccomp":`+profile+`}}`, 0o600)
			runcLog, nodeLog := filepath.Join(logs, "log.json"), filepath.Join(logs, "draconform-runc.log")
			cmd := exec.Command(wrapper, "--root", "/run/x", "--log", runcLog, "--log-format", "json", "create", "--bundle", bundle, "--pid-file", "/x/pid", "abc")
			// The variable the embedded node gives its containerd (localnode).
			cmd.Env = append(os.Environ(), "DRACONFORM_RUNC_LOG="+nodeLog)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if (err == nil) != tt.wantRunc {
				t.Fatalf("wrapper: %v; stderr %s", err, stderr.String())
			}
			got := readJSON(t, config)["linux"].(map[string]any)["seccomp"]
			if want := readJSONString(t, `{"p":`+tt.wantProfile+`}`)["p"]; !reflect.DeepEqual(got, want) {
				t.Errorf("profile runc reads:\n got %v\nwant %v", got, want)
			}
			if _, err := os.Stat(calls); (err == nil) != tt.wantRunc {
				t.Errorf("runc ran: %v, want %v", err == nil, tt.wantRunc)
			}
			for _, f := range []string{runcLog, nodeLog} {
				if data, _ := os.ReadFile(f); !strings.Contains(string(data), tt.wantLog) {
					t.Errorf("%s does not name %s: %q", filepath.Base(f), tt.wantLog, data)
				}
			}
			if tt.wantRunc {
				if stderr.Len() > 0 {
					t.Errorf("wrote to the container's stderr: %s", stderr.String())
				}
				return
			}
			var last struct{ Level, Msg string }
			data, _ := os.ReadFile(runcLog)
			if json.Unmarshal(data, &last) != nil || last.Level != "error" || !strings.Contains(last.Msg, "libseccomp-dev") {
				t.Errorf("runc's log gives the shim no error naming the package: %s", data)
			}
		})
	}
}
