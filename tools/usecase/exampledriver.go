package usecase

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/draconform/draconform/tools/cluster/exampledriver"
	"github.com/draconform/draconform/tools/runner"
)

// ExampleDriverRequest puts the Kubernetes SIG's example DRA driver on the
// kubelet node of a running `draconform up --node`, as its chart renders
// it, and keeps it until interrupted; then it removes everything it
// created. A driver nobody here wrote, to certify through --provider
// kubeconfig with suites/profiles/dra-example-driver.yaml.
type ExampleDriverRequest struct {
	// Kubeconfig is the one draconform up wrote; Node the embedded node to
	// install on ("" for the only one); Out the folder for the chart's
	// values, the rendered chart and the image archive.
	Kubeconfig, Node, Out string
	// BuildOnly installs nothing (ExampleDriverFiles).
	BuildOnly bool
}

// ExampleDriverFiles builds the driver's plugin and writes its image
// archive into Out, and prints, one "what value" line each, the image the
// archive holds, the archive, and the chart's folder: what a cluster of
// one's own (kind load image-archive, helm install) needs, as the driver's
// README installs it.
func ExampleDriverFiles(ctx context.Context, r ExampleDriverRequest, s Streams) error {
	dir, err := outputDir(r.Out, "example-driver-"+runner.NewRunID())
	if err != nil {
		return err
	}
	b, err := exampledriver.Build(ctx, exampledriver.BuildOptions{Log: s.Err})
	if err != nil {
		return err
	}
	archive, err := exampledriver.WriteImage(b, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "image %s\narchive %s\nchart %s\n", exampledriver.Image(b.Version), archive, b.ChartDir)
	return nil
}

// ExampleDriver installs the driver, keeps it until ctx ends, then removes
// everything it created.
func ExampleDriver(ctx context.Context, r ExampleDriverRequest, s Streams) (err error) {
	if r.Kubeconfig == "" {
		return failed(2, fmt.Errorf("--kubeconfig is required: the one draconform up --node printed"))
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("needs root, as the node does: it imports an image into the node's containerd and removes the driver's files from the node's folders")
	}
	t, err := exampledriver.Locate(r.Kubeconfig, r.Node)
	if err != nil {
		return err
	}
	dir, err := outputDir(r.Out, "example-driver-"+runner.NewRunID())
	if err != nil {
		return err
	}
	plan, err := prepareDriver(ctx, t, dir, s)
	if err != nil {
		return err
	}
	installed := time.Now()
	inst, err := t.Install(ctx, plan)
	if inst != nil {
		defer func() {
			fmt.Fprintln(s.Out, "removing the example driver")
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if rerr := inst.Remove(rctx); rerr != nil {
				// Said after what went wrong before, as two lines.
				if err != nil {
					err = fmt.Errorf("%w\ndraconform example-driver: %v", err, rerr)
				} else {
					err = rerr
				}
				return
			}
			fmt.Fprintln(s.Out, "removed everything it created")
		}()
	}
	if err != nil {
		return err
	}
	pub, err := inst.Wait(ctx, 3*time.Minute)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "the example driver runs on node %s after %.1fs\n", t.Node.Name, time.Since(installed).Seconds())
	if pub.Registration != "" {
		fmt.Fprintln(s.Out, "kubelet: "+pub.Registration)
	}
	for _, line := range pub.Describe() {
		fmt.Fprintln(s.Out, line)
	}
	fmt.Fprintln(s.Out, "Ctrl-C removes it.")
	<-ctx.Done()
	return nil
}

// prepareDriver builds the driver's plugin and renders its chart for the
// node of t, and says what the install creates.
func prepareDriver(ctx context.Context, t *exampledriver.Target, dir string, s Streams) (*exampledriver.Plan, error) {
	began := time.Now()
	b, err := exampledriver.Build(ctx, exampledriver.BuildOptions{Log: s.Err})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(s.Err, "example driver %s: plugin and chart renderer ready in %.1fs; chart %s\n", b.Version, time.Since(began).Seconds(), b.ChartDir)
	plan, err := t.Prepare(ctx, b, dir)
	if err != nil {
		return nil, err
	}
	describeDriverPlan(t, b, plan, dir, s)
	return plan, nil
}

// describeDriverPlan says what the install creates on the node, and where
// it differs from the chart.
func describeDriverPlan(t *exampledriver.Target, b exampledriver.Binaries, plan *exampledriver.Plan, dir string, s Streams) {
	fmt.Fprintf(s.Out, "draconform example-driver: on node %s (state %s, kubelet log %s) this creates:\n", t.Node.Name, t.Running.Dir, t.Node.KubeletLog)
	for _, line := range plan.Describe() {
		fmt.Fprintln(s.Out, "  "+line)
	}
	fmt.Fprintf(s.Out, "as the chart of %s@%s renders it (%s/chart.yaml, values %s/values.json), except:\n", exampledriver.Module, b.Version, dir, dir)
	for _, d := range plan.Deviations {
		fmt.Fprintf(s.Out, "  %s: %s\n", d.What, d.Why)
	}
	fmt.Fprintln(s.Out, "Ctrl-C removes all of it.")
}
