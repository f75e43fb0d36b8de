package localnode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/internal/mountinfo"
)

var testLayout = nodeLayout{dir: "/var/lib/draconform/abc123"}

// Nodes side by side must share nothing on the machine: every path in a
// node's configs is inside its own directory.
func pathsOutside(t *testing.T, text string, dir string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`"(/[^"]*)"`).FindAllStringSubmatch(text, -1) {
		if p := m[1]; p != dir && !strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

func TestContainerdConfigStaysInItsDirectory(t *testing.T) {
	cfg := containerdConfig(testLayout, PauseImage, "overlayfs")
	if out := pathsOutside(t, cfg, testLayout.dir); len(out) > 0 {
		t.Errorf("paths outside the node's directory: %v\n%s", out, cfg)
	}
	for _, want := range []string{
		`enable_cdi = true`,
		`cdi_spec_dirs = ["/var/lib/draconform/abc123/cdi"]`,
		`BinaryName = "/var/lib/draconform/abc123/bin/draconform-runc"`,
		`sandbox = "draconform.dev/pause:dev"`,
		"[plugins.'io.containerd.nri.v1.nri']\n  disable = true",
		`socket_dir = "/var/lib/draconform/abc123/s"`,
		`address = "/var/lib/draconform/abc123/containerd.sock"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
}

func TestKubeletConfigDecodesStrictly(t *testing.T) {
	data, err := kubeletConfig(kubeletParams{layout: testLayout, nodeIP: "192.0.2.2", port: 40001, healthzPort: 40002,
		cgroupRoot: "/draconform-abc123", caFile: "/var/lib/draconform/abc123/ca.crt",
		certFile: "/var/lib/draconform/abc123/pki/kubelet.crt", keyFile: "/var/lib/draconform/abc123/pki/kubelet.key"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatalf("the kubelet would not read its config: %v\n%s", err, data)
	}
	if cfg.Kind != "KubeletConfiguration" || cfg.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		t.Errorf("type %s/%s", cfg.APIVersion, cfg.Kind)
	}
	// The settings this machine needs, each a start failure without it.
	if cfg.FailCgroupV1 == nil || *cfg.FailCgroupV1 || cfg.OOMScoreAdj == nil || *cfg.OOMScoreAdj < 0 || cfg.CgroupRoot != "/draconform-abc123" {
		t.Errorf("failCgroupV1 %v, oomScoreAdj %v, cgroupRoot %q", cfg.FailCgroupV1, cfg.OOMScoreAdj, cfg.CgroupRoot)
	}
	if cfg.Authentication.Anonymous.Enabled == nil || *cfg.Authentication.Anonymous.Enabled || cfg.Authorization.Mode != kubeletv1beta1.KubeletAuthorizationModeWebhook {
		t.Error("the kubelet must not serve anonymous requests")
	}
	if cfg.MakeIPTablesUtilChains == nil || *cfg.MakeIPTablesUtilChains {
		t.Error("the kubelet must leave the machine's iptables alone")
	}
	cfg.CgroupRoot = "" // a cgroup path, not a file's
	if out := pathsOutside(t, string(mustJSON(t, cfg)), testLayout.dir); len(out) > 0 {
		t.Errorf("paths outside the node's directory: %v", out)
	}
}

// A container that names no seccomp profile runs under the runtime's
// default one, which draconform-runc keeps, not unconfined.
func TestKubeletGivesContainersTheRuntimesDefaultProfile(t *testing.T) {
	data, err := kubeletConfig(kubeletParams{layout: testLayout, nodeIP: "10.201.2.1", port: 40001, healthzPort: 40002, cgroupRoot: "/draconform-abc123"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.SeccompDefault == nil || !*cfg.SeccompDefault {
		t.Error("containers without a profile of their own run unconfined: want seccompDefault, the runtime's default profile")
	}
}

func TestCNIConfigIsTheNodesOwnBridgeWithoutNAT(t *testing.T) {
	data, err := cniConfig(testLayout, "draconform-abc123", "dcbrabc123", "10.201.2.0/24")
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Plugins []struct {
			Type, Bridge string
			IPMasq       bool `json:"ipMasq"`
			IsGateway    bool `json:"isGateway"`
			IPAM         struct {
				Type, DataDir string
			}
		}
	}
	if err := json.Unmarshal(data, &conf); err != nil {
		t.Fatal(err)
	}
	p := conf.Plugins[0]
	if p.Type != "bridge" || p.Bridge != "dcbrabc123" || p.IPMasq || p.IsGateway || p.IPAM.Type != "host-local" || !strings.HasPrefix(p.IPAM.DataDir, testLayout.dir+"/") {
		t.Errorf("conflist %s", data)
	}
}

func TestPodSubnetsDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"000000", "000100", "010000", "ffffff", "abc123"} {
		s := podSubnet(id)
		if !regexp.MustCompile(`^10\.(2[0-4][0-9])\.\d+\.0/24$`).MatchString(s) {
			t.Errorf("%s: subnet %s outside 10.200-249", id, s)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("%s and %s share %s", id, other, s)
		}
		seen[s] = id
	}
}

func TestParseMountInfo(t *testing.T) {
	line := `612 31 0:52 / /var/lib/draconform/abc\040123/kubelet rw,relatime shared:1 - tmpfs tmpfs rw`
	mi, ok := mountinfo.Parse(line)
	if !ok || mi.MountPoint != "/var/lib/draconform/abc 123/kubelet" || mi.FSType != "tmpfs" {
		t.Errorf("got %+v %t", mi, ok)
	}
	if _, ok := mountinfo.Parse("garbage"); ok {
		t.Error("a line without a separator parsed")
	}
	paths := []string{"/a", "/a/b/c", "/a/b"}
	sortDeepestFirst(paths)
	if strings.Join(paths, " ") != "/a/b/c /a/b /a" {
		t.Errorf("order %v", paths)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCRIPluginError(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "containerd.log")
	ok := "time=x level=info msg=\"loading plugin\" id=io.containerd.grpc.v1.cri\n"
	if err := os.WriteFile(log, []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := criPluginError(log); err != nil {
		t.Errorf("a loaded plugin: %v", err)
	}
	bad := ok + `time=y level=warning msg="failed to load plugin" error="failed to create CRI service: failed to create cni conf monitor for default: failed to create fsnotify watcher: couldn't initialize inotify: too many open files" id=io.containerd.grpc.v1.cri type=io.containerd.grpc.v1` + "\n"
	if err := os.WriteFile(log, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	err := criPluginError(log)
	if err == nil || !strings.Contains(err.Error(), "without its CRI plugin") || !strings.Contains(err.Error(), "max_user_instances") {
		t.Errorf("got %v", err)
	}
}
