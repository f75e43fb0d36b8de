package nodeimage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/draconform/draconform/tools/host/engine"
	"github.com/draconform/draconform/tools/internal/logtail"
)

// Docker is the engine the image is built in; tests stand in for it.
type Docker interface {
	// ImageExists says whether the engine has ref locally.
	ImageExists(ctx context.Context, ref string) bool
	// Run runs docker with args and returns its combined output.
	Run(ctx context.Context, args ...string) ([]byte, error)
	// RunStdin is Run with stdin, for archives streamed into a container.
	RunStdin(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error)
}

type execDocker struct{}

func (execDocker) ImageExists(ctx context.Context, ref string) bool {
	return exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", ref).Run() == nil
}

func (d execDocker) Run(ctx context.Context, args ...string) ([]byte, error) {
	return d.RunStdin(ctx, nil, args...)
}

func (execDocker) RunStdin(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdin = stdin
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.Bytes(), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, logtail.Lines(out.String(), 12))
	}
	return out.Bytes(), nil
}

// ImageID is the engine's ID of ref, the digest of its configuration: one
// name for the image however it is tagged.
func ImageID(ctx context.Context, ref string) (string, error) {
	engine.PointDockerHost()
	out, err := execDocker{}.Run(ctx, "image", "inspect", "--format", "{{.Id}}", ref)
	if err != nil {
		return "", fmt.Errorf("nodeimage: the ID of %s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}
