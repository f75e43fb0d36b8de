package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/draconform/draconform/tools/host/ociarchive"
	"github.com/draconform/draconform/tools/internal/logtail"
)

// probeImage is a container image of one static program that waits for a
// signal, built here: no registry is reachable to pull one from.
const probeImage = "draconform.dev/engine-probe:1"

// probe starts a privileged container, the way kind starts a node, and
// removes it. Its error carries what the engine said.
func (o Options) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := o.Run(ctx, "docker", o.dockerArgs("image", "inspect", probeImage)...); err != nil {
		if err := o.loadProbeImage(ctx); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("draconform-engine-probe-%d", os.Getpid())
	out, err := o.Run(ctx, "docker", o.dockerArgs("run", "-d", "--privileged", "--name", name, "--label", "draconform.dev/engine-probe=true", probeImage)...)
	defer o.Run(context.Background(), "docker", o.dockerArgs("rm", "-f", name)...) //nolint:errcheck // best effort; a leftover is named and labelled
	if err != nil {
		return fmt.Errorf("a privileged container does not start: %s", logtail.Lines(string(out), 3))
	}
	return nil
}

// loadProbeImage builds the probe image from draconform-pause and loads it.
func (o Options) loadProbeImage(ctx context.Context) error {
	dir := filepath.Join(o.StateDir, "probe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(dir, "draconform-pause")
	if err := o.goBuild(ctx, bin, "./tools/cmd/draconform-pause"); err != nil {
		return err
	}
	archive := filepath.Join(dir, "probe.tar")
	if err := ociarchive.Write(archive, ociarchive.Image{Ref: probeImage, Files: map[string]string{"/pause": bin}, Entrypoint: []string{"/pause"}}); err != nil {
		return err
	}
	if out, err := o.Run(ctx, "docker", o.dockerArgs("load", "-i", archive)...); err != nil {
		return fmt.Errorf("docker load %s: %w\n%s", archive, err, logtail.Lines(string(out), 5))
	}
	return nil
}

// installWrapper builds draconform-runc into the state directory, beside a
// link to the engine's own runc, which the wrapper execs.
func (o Options) installWrapper(ctx context.Context) (string, error) {
	runc, err := exec.LookPath("runc")
	if err != nil {
		return "", fmt.Errorf("the runtime wrapper needs the engine's runc: %w", err)
	}
	dir := filepath.Join(o.StateDir, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	wrapper := filepath.Join(dir, runtimeName)
	if err := o.goBuild(ctx, wrapper, "./tools/cmd/draconform-runc"); err != nil {
		return "", err
	}
	link := filepath.Join(dir, "runc")
	_ = os.Remove(link)
	if err := os.Symlink(runc, link); err != nil {
		return "", err
	}
	return wrapper, nil
}

// goBuild builds one of draconform's own commands, statically.
func (o Options) goBuild(ctx context.Context, out, pkg string) error {
	if o.RepoRoot == "" {
		return fmt.Errorf("building %s: no repository root given", pkg)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = o.RepoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", pkg, err, b)
	}
	return nil
}
