package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	badConfig := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(badConfig, []byte("devices: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	for name, tc := range map[string]struct {
		args       []string
		environ    []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		"print-env prints and stops on signal": {
			args:       []string{"print-env"},
			environ:    []string{"HOME=/", "DRACONFORM_0_DEVICE=shared-0", "DRACONFORM_CLAIM=ns/c"},
			wantCode:   0,
			wantStdout: "DRACONFORM_0_DEVICE=shared-0\nDRACONFORM_CLAIM=ns/c\nHOME=/\n",
		},
		"print-env takes no arguments": {
			args:       []string{"print-env", "x"},
			wantCode:   2,
			wantStderr: "print-env takes no arguments",
		},
		"node name is required": {
			args:       []string{"--config", badConfig},
			wantCode:   2,
			wantStderr: "--node-name or $NODE_NAME is required",
		},
		"unknown subcommand": {
			args:       []string{"serve"},
			environ:    []string{"NODE_NAME=n"},
			wantCode:   2,
			wantStderr: `unexpected argument "serve" (the only subcommand is print-env)`,
		},
		"invalid config fails before contacting the cluster": {
			args:       []string{"--config", badConfig},
			environ:    []string{"NODE_NAME=node-a"},
			wantCode:   1,
			wantStderr: badConfig + ":1: devices: Required value: at least one device",
		},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(canceled, tc.args, tc.environ, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			if stdout.String() != tc.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tc.wantStdout)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}
