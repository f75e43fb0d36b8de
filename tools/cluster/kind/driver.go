package kind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
)

// The test driver, by path and name only: drivers/ is built into an image
// here, never imported, so this package does not depend on its Go code.
const (
	DriverImage      = "draconform.dev/testdriver:dev"
	DriverDockerfile = "drivers/Dockerfile"
	DriverManifests  = "drivers/deploy/testdriver.yaml"
	DriverNamespace  = "draconform-driver"
	DriverDaemonSet  = "draconform-driver"
	DriverName       = "testdriver.draconform.dev"
)

// dockerBuildArgs builds the driver image from the repository root, the
// build context its Dockerfile expects.
func dockerBuildArgs(repoRoot string) []string {
	return []string{"build", "-f", filepath.Join(repoRoot, DriverDockerfile), "-t", DriverImage, repoRoot}
}

// dockerSaveArgs writes the image as an archive that containerd in a node
// can import: what `kind load docker-image` does, without a kind binary.
func dockerSaveArgs(archive string) []string {
	return []string{"save", "-o", archive, DriverImage}
}

// buildDriverImage builds and saves the image once per provider, since
// every cluster of a run gets the same one.
func (p *Provider) buildDriverImage(ctx context.Context) (string, error) {
	p.driverMu.Lock()
	defer p.driverMu.Unlock()
	if p.driverArchive != "" {
		return p.driverArchive, nil
	}
	root := p.opts.RepoRoot
	archive := filepath.Join(p.opts.OutDir, "testdriver-image.tar")
	if err := os.MkdirAll(p.opts.OutDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", p.opts.OutDir, err)
	}
	for _, args := range [][]string{dockerBuildArgs(root), dockerSaveArgs(archive)} {
		p.logf("kind: docker %s", strings.Join(args, " "))
		if out, err := p.run(ctx, "docker", args...); err != nil {
			return "", fmt.Errorf("docker %s: %w: %s", args[0], err, lastLines(string(out), 15))
		}
	}
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
	dyn, err := dynamic.NewForConfig(kc.restConfig())
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(kc.restConfig())
	if err != nil {
		return fmt.Errorf("discovery client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	applied, err := applyManifests(ctx, dyn, mapper, data)
	if err != nil {
		return fmt.Errorf("applying %s: %w", DriverManifests, err)
	}
	p.logf("kind: applied %s on %s: %s", DriverManifests, kc.name, strings.Join(applied, ", "))
	if err := waitDriver(ctx, kc.client, 5*time.Minute); err != nil {
		return err
	}
	p.logf("kind: test driver ready on %s in %.0fs", kc.name, time.Since(began).Seconds())
	return nil
}

// waitDriver waits for the DaemonSet to be ready on every node it targets
// and for the driver to have published a ResourceSlice.
func waitDriver(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) error {
	last := "nothing observed yet"
	err := poll(ctx, timeout, 2*time.Second, func(ctx context.Context) (bool, error) {
		ds, err := cs.AppsV1().DaemonSets(DriverNamespace).Get(ctx, DriverDaemonSet, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		ok, why := daemonSetReady(ds)
		if !ok {
			last = why
			return false, nil
		}
		slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + DriverName})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(slices.Items) == 0 {
			last = "the DaemonSet is ready but no ResourceSlice of driver " + DriverName + " exists"
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the test driver (DaemonSet %s/%s): %w; last: %s", DriverNamespace, DriverDaemonSet, err, last)
	}
	return nil
}

// daemonSetReady is the rollout check of kubectl rollout status, minus its
// printing: the controller saw the latest spec and every pod it wants is
// updated and ready.
func daemonSetReady(ds *appsv1.DaemonSet) (bool, string) {
	s := ds.Status
	switch {
	case s.ObservedGeneration < ds.Generation:
		return false, fmt.Sprintf("the controller has not observed generation %d yet", ds.Generation)
	case s.DesiredNumberScheduled == 0:
		return false, "no node is scheduled to run the driver"
	case s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d driver pods updated", s.UpdatedNumberScheduled, s.DesiredNumberScheduled)
	case s.NumberReady < s.DesiredNumberScheduled:
		return false, fmt.Sprintf("%d of %d driver pods ready", s.NumberReady, s.DesiredNumberScheduled)
	}
	return true, ""
}
