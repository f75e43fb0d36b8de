package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/draconform/draconform/tools/cluster/exampledriver"
	"github.com/draconform/draconform/tools/runner"
	"github.com/spf13/pflag"
)

// exampleDriverCmd puts the Kubernetes SIG's example DRA driver on the
// kubelet node of a running `draconform up --node`, as its chart renders
// it, and keeps it until interrupted; then it removes everything it
// created. A driver nobody here wrote, to certify through --provider
// kubeconfig with suites/profiles/dra-example-driver.yaml.
func exampleDriverCmd(fs *pflag.FlagSet) action {
	path := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig draconform up wrote (default: $KUBECONFIG)")
	nodeName := fs.String("node", "", "the embedded node to install on, where several talk to the API server (default: the only one)")
	out := fs.String("out", "", "directory for the chart's values, the rendered chart and the image archive (default: _output/example-driver-<id>)")
	return func(ctx context.Context, args []string, s Streams) (code int) {
		fail := func(err error) int {
			fmt.Fprintln(s.Err, "draconform example-driver:", err)
			return 1
		}
		if *path == "" {
			fmt.Fprintln(s.Err, "draconform example-driver: --kubeconfig is required: the one draconform up --node printed")
			return 2
		}
		if os.Geteuid() != 0 {
			return fail(fmt.Errorf("needs root, as the node does: it imports an image into the node's containerd and removes the driver's files from the node's folders"))
		}
		t, err := exampledriver.Locate(*path, *nodeName)
		if err != nil {
			return fail(err)
		}
		node := t.Node
		dir, err := outputDir(*out, "example-driver-"+runner.NewRunID())
		if err != nil {
			return fail(err)
		}

		began := time.Now()
		b, err := exampledriver.Build(ctx, exampledriver.BuildOptions{Log: s.Err})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(s.Err, "example driver %s: plugin and chart renderer ready in %.1fs; chart %s\n", b.Version, time.Since(began).Seconds(), b.ChartDir)
		plan, err := t.Prepare(ctx, b, dir)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(s.Out, "draconform example-driver: on node %s (state %s, kubelet log %s) this creates:\n", node.Name, t.Running.Dir, node.KubeletLog)
		for _, line := range plan.Describe() {
			fmt.Fprintln(s.Out, "  "+line)
		}
		fmt.Fprintf(s.Out, "as the chart of %s@%s renders it (%s/chart.yaml, values %s/values.json), except:\n", exampledriver.Module, b.Version, dir, dir)
		for _, d := range plan.Deviations {
			fmt.Fprintf(s.Out, "  %s: %s\n", d.What, d.Why)
		}
		fmt.Fprintln(s.Out, "Ctrl-C removes all of it.")

		installed := time.Now()
		inst, err := t.Install(ctx, plan)
		if inst != nil {
			defer func() {
				fmt.Fprintln(s.Out, "removing the example driver")
				rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				if err := inst.Remove(rctx); err != nil {
					code = fail(err)
					return
				}
				fmt.Fprintln(s.Out, "removed everything it created")
			}()
		}
		if err != nil {
			return fail(err)
		}
		pub, err := inst.Wait(ctx, 3*time.Minute)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(s.Out, "the example driver runs on node %s after %.1fs\n", node.Name, time.Since(installed).Seconds())
		if pub.Registration != "" {
			fmt.Fprintln(s.Out, "kubelet: "+pub.Registration)
		}
		for _, line := range pub.Describe() {
			fmt.Fprintln(s.Out, line)
		}
		fmt.Fprintln(s.Out, "Ctrl-C removes it.")
		<-ctx.Done()
		return 0
	}
}
