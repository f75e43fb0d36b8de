package kind

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckDocker(t *testing.T) {
	tests := []struct {
		name string
		out  string
		err  error
		want []string // substrings; nil means no error
	}{
		{"engine up", "29.1.0\n", nil, nil},
		{"no docker binary", "", &exec.Error{Name: "docker", Err: exec.ErrNotFound},
			[]string{"the kind provider needs a Docker engine: `docker info` failed: exec: \"docker\": executable file not found in $PATH", "make conformance"}},
		{"client without engine", "Client:\n Version: 29.1.0\n\nServer:\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n", errors.New("exit status 1"),
			[]string{"`docker info` failed: exit status 1: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			run := func(_ context.Context, name string, args ...string) ([]byte, error) {
				asked = append([]string{name}, args...)
				return []byte(tt.out), tt.err
			}
			err := CheckDocker(context.Background(), run)
			if diff := cmp.Diff([]string{"docker", "info", "--format", "{{.ServerVersion}}"}, asked); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
			if tt.want == nil {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// Where this test runs without a Docker engine (as on the machine it was
// written on, which has a docker client but no daemon), the real runner
// gives the same message.
func TestCheckDockerWithTheRealRunner(t *testing.T) {
	err := CheckDocker(context.Background(), ExecRunner)
	if err == nil {
		t.Skip("a Docker engine is up; the fake-runner cases cover the message")
	}
	if !strings.HasPrefix(err.Error(), "the kind provider needs a Docker engine: `docker info` failed: ") {
		t.Errorf("error %v", err)
	}
	t.Log(err)
}
