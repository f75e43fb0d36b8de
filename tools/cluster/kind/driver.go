package kind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"

	"github.com/draconform/draconform/tools/cluster/testdriver"
)

// The test driver, by path and name only: drivers/ is built into an image
// here, never imported, so this package does not depend on its Go code.
const (
	DriverImage     = testdriver.Image
	DriverManifests = "drivers/deploy/testdriver.yaml"
)

// buildDriverImage builds the driver's image archive once per provider,
// since every cluster of a run gets the same one. It is made from the
// binary (tools/cluster/testdriver), not with docker build, whose base
// images come from a registry.
func (p *Provider) buildDriverImage(ctx context.Context) (string, error) {
	p.driverMu.Lock()
	defer p.driverMu.Unlock()
	if p.driverArchive != "" {
		return p.driverArchive, nil
	}
	archive, took, err := testdriver.BuildImage(ctx, p.opts.RepoRoot, filepath.Join(p.opts.OutDir, "testdriver"), "")
	if err != nil {
		return "", err
	}
	p.logf("kind: built the test driver image %s in %.1fs", DriverImage, took.Seconds())
	p.driverArchive = archive
	return archive, nil
}

// loadImage imports the archive into containerd on every node, as kind's
// load docker-image command does with the same public nodeutils function.
func loadImage(archive string, all []nodes.Node) error {
	for _, n := range all {
		f, err := os.Open(archive)
		if err != nil {
			return fmt.Errorf("opening %s: %w", archive, err)
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("loading %s into node %s: %w", DriverImage, n, err)
		}
	}
	return nil
}

// installDriver puts the test driver on a new cluster and returns once it
// publishes devices: the runner probes for its ResourceSlices right after
// Start, and a case needing the driver is skipped if there are none yet.
func (p *Provider) installDriver(ctx context.Context, kc *kindCluster) error {
	began := time.Now()
	archive, err := p.buildDriverImage(ctx)
	if err != nil {
		return fmt.Errorf("building the test driver image: %w", err)
	}
	if err := loadImage(archive, kc.nodes); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(p.opts.RepoRoot, DriverManifests))
	if err != nil {
		return fmt.Errorf("reading the test driver's manifests: %w", err)
	}
	applied, err := testdriver.Apply(ctx, kc.restConfig(), data)
	if err != nil {
		return fmt.Errorf("applying %s: %w", DriverManifests, err)
	}
	p.logf("kind: applied %s on %s: %s", DriverManifests, kc.name, strings.Join(applied, ", "))
	if err := testdriver.Wait(ctx, kc.client, "", 5*time.Minute); err != nil {
		return err
	}
	p.logf("kind: test driver ready on %s in %.0fs", kc.name, time.Since(began).Seconds())
	return nil
}
