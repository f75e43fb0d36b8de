package kind

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/draconform/draconform/tools/cluster"
)

// nodeRun runs argv in a node container and returns its stdout; the error
// carries stderr, which is where crictl and the kubelet tools explain.
func nodeRun(ctx context.Context, n nodes.Node, stdin io.Reader, argv ...string) ([]byte, error) {
	var out, errb bytes.Buffer
	cmd := n.CommandContext(ctx, argv[0], argv[1:]...).SetStdout(&out).SetStderr(&errb)
	if stdin != nil {
		cmd.SetStdin(stdin)
	}
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s on node %s: %w: %s", strings.Join(argv, " "), n, err, lastLines(errb.String(), 5))
	}
	return out.Bytes(), nil
}

// nodeCombined runs argv and returns stdout and stderr interleaved, for
// logs, which a container writes to both.
func nodeCombined(ctx context.Context, n nodes.Node, argv ...string) ([]byte, error) {
	var out bytes.Buffer
	err := n.CommandContext(ctx, argv[0], argv[1:]...).SetStdout(&out).SetStderr(&out).Run()
	if err != nil {
		return out.Bytes(), fmt.Errorf("%s on node %s: %w", strings.Join(argv, " "), n, err)
	}
	return out.Bytes(), nil
}

const manifestsDir = "/etc/kubernetes/manifests"

// manifestPath is where kubeadm writes the static pod of a component.
func manifestPath(c cluster.Component) string {
	return path.Join(manifestsDir, string(c)+".yaml")
}

// stagingPath is where a new manifest is written before it is renamed into
// place: the kubelet would otherwise read it half written. It is outside
// the manifests directory, whose every file the kubelet runs, and on the
// same filesystem, so the rename is atomic.
func stagingPath(c cluster.Component) string {
	return path.Join(path.Dir(manifestsDir), "draconform-"+string(c)+".yaml.new")
}

// writeManifestArgv are the two commands that replace a manifest: copy
// stdin to the staging file, then rename it over the manifest.
func writeManifestArgv(c cluster.Component) (write, rename []string) {
	return []string{"cp", "/dev/stdin", stagingPath(c)}, []string{"mv", "-f", stagingPath(c), manifestPath(c)}
}

func readManifest(ctx context.Context, n nodes.Node, c cluster.Component) ([]byte, error) {
	return nodeRun(ctx, n, nil, "cat", manifestPath(c))
}

func writeManifest(ctx context.Context, n nodes.Node, c cluster.Component, data []byte) error {
	write, rename := writeManifestArgv(c)
	if _, err := nodeRun(ctx, n, bytes.NewReader(data), write...); err != nil {
		return err
	}
	_, err := nodeRun(ctx, n, nil, rename...)
	return err
}
