package localnode

import (
	"github.com/draconform/draconform/tools/cluster/localproc"
	"strings"
	"testing"
)

func TestParseKubeletCmdline(t *testing.T) {
	ours := "/var/lib/draconform/a1b2c3/bin/kubelet\x00--hostname-override=n1\x00--root-dir=" + StateRoot + "/a1b2c3/kubelet\x00--kubeconfig=/k/kubeconfig\x00"
	k, ok := parseKubeletArgs(localproc.SplitCmdline([]byte(ours)))
	if !ok || k.name != "n1" || k.rootDir != StateRoot+"/a1b2c3/kubelet" || k.kubeconfig != "/k/kubeconfig" {
		t.Errorf("our node's kubelet: %+v %v", k, ok)
	}
	for name, cmdline := range map[string]string{
		"the machine's own kubelet": "/usr/bin/kubelet\x00--hostname-override=h\x00--root-dir=/var/lib/kubelet\x00--kubeconfig=/etc/kubernetes/kubelet.conf\x00",
		"a folder that is no node":  "kubelet\x00--hostname-override=n1\x00--root-dir=" + StateRoot + "/not-a-node/kubelet\x00--kubeconfig=/k\x00",
		"another program":           "/usr/bin/containerd\x00--root-dir=" + StateRoot + "/a1b2c3/kubelet\x00",
		"no kubeconfig":             "kubelet\x00--hostname-override=n1\x00--root-dir=" + StateRoot + "/a1b2c3/kubelet\x00",
	} {
		if k, ok := parseKubeletArgs(localproc.SplitCmdline([]byte(cmdline))); ok {
			t.Errorf("%s taken for a node: %+v", name, k)
		}
	}
}

func TestPickNode(t *testing.T) {
	a, b := RunningNode{Name: "a"}, RunningNode{Name: "b"}
	for name, tc := range map[string]struct {
		nodes []RunningNode
		name  string
		want  string // the node's name, or a part of the error
	}{
		"the only one":     {[]RunningNode{a}, "", "a"},
		"named":            {[]RunningNode{a, b}, "b", "b"},
		"none":             {nil, "", "no embedded node of this machine"},
		"several, unnamed": {[]RunningNode{a, b}, "", "2 embedded nodes talk to the API server at s (a, b): name one with --node"},
		"named, not there": {[]RunningNode{a}, "c", "no embedded node c talks to the API server at s; its nodes: a"},
	} {
		t.Run(name, func(t *testing.T) {
			n, err := pickNode(tc.nodes, "s", tc.name)
			if !strings.Contains(tc.want, " ") {
				if err != nil || n.Name != tc.want {
					t.Errorf("got %q, %v; want node %q", n.Name, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, %v; want an error saying %q", n.Name, err, tc.want)
			}
		})
	}
}
