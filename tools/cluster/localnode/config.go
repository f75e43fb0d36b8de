package localnode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/draconform/draconform/tools/cluster/localproc"
)

// nodeLayout is where one node keeps everything: one directory per node, so
// that several nodes (one per cell) run side by side and stopping one
// removes exactly its own.
type nodeLayout struct {
	dir string // StateRoot/<id>
}

func (l nodeLayout) bin() string            { return filepath.Join(l.dir, "bin") }
func (l nodeLayout) containerdRoot() string { return filepath.Join(l.dir, "containerd", "root") }
func (l nodeLayout) containerdState() string {
	return filepath.Join(l.dir, "containerd", "state")
}
func (l nodeLayout) containerdConfig() string { return filepath.Join(l.dir, "containerd.toml") }
func (l nodeLayout) socket() string           { return filepath.Join(l.dir, "containerd.sock") }
func (l nodeLayout) cdi() string              { return filepath.Join(l.dir, "cdi") }
func (l nodeLayout) cniConf() string          { return filepath.Join(l.dir, "cni", "net.d") }
func (l nodeLayout) cniData() string          { return filepath.Join(l.dir, "cni", "ipam") }
func (l nodeLayout) kubeletRoot() string      { return filepath.Join(l.dir, "kubelet") }
func (l nodeLayout) kubeletConfig() string    { return filepath.Join(l.dir, "kubelet-config.yaml") }
func (l nodeLayout) kubeconfig() string       { return filepath.Join(l.dir, "kubelet.kubeconfig") }
func (l nodeLayout) pki() string              { return filepath.Join(l.dir, "pki") }
func (l nodeLayout) podLogs() string          { return filepath.Join(l.dir, "pod-logs") }
func (l nodeLayout) utab() string             { return filepath.Join(l.dir, "libmount", "utab") }

// kubeletEnv is the kubelet's environment: the control plane's, with
// libmount's table of mounts in the node's folder. The kubelet mounts
// volumes with mount(8), and libmount, run as root, makes the folder of
// its table, /run/mount unless LIBMOUNT_UTAB names another
// (mnt_has_regular_utab): the machine would keep it after the node.
func kubeletEnv(l nodeLayout, env []string) []string {
	return localproc.ComponentEnv(append(slices.Clip(env), "LIBMOUNT_UTAB="+l.utab()))
}

// containerdConfig renders containerd's config (version 3, containerd 2.x).
// Every path a default would share with another containerd on the machine
// moves into the node's directory; CDI is on, for the test driver's specs;
// runc is called through draconform-runc, which drops what this machine's
// capability bounding set lacks; NRI is off, since its socket is
// machine-wide.
func containerdConfig(l nodeLayout, pauseImage, snapshotter string) string {
	q := strconv.Quote
	return strings.Join([]string{
		`version = 3`,
		`root = ` + q(l.containerdRoot()),
		`state = ` + q(l.containerdState()),
		// Else the built-in default reads /etc/containerd/conf.d/*.toml.
		`imports = []`,
		`disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.erofs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]`,
		``,
		`[grpc]`,
		`  address = ` + q(l.socket()),
		`[ttrpc]`,
		`  address = ` + q(l.socket()+".ttrpc"),
		``,
		`[plugins.'io.containerd.internal.v1.opt']`,
		`  path = ` + q(filepath.Join(l.dir, "opt")),
		`[plugins.'io.containerd.nri.v1.nri']`,
		`  disable = true`,
		// Shim sockets default to /run/containerd/s, shared by every
		// containerd; a killed shim would leave its socket there.
		`[plugins.'io.containerd.shim.v1.manager']`,
		`  socket_dir = ` + q(filepath.Join(l.dir, "s")),
		`[plugins.'io.containerd.cri.v1.images']`,
		`  snapshotter = ` + q(snapshotter),
		`  [plugins.'io.containerd.cri.v1.images'.pinned_images]`,
		`    sandbox = ` + q(pauseImage),
		`[plugins.'io.containerd.cri.v1.runtime']`,
		`  enable_cdi = true`,
		`  cdi_spec_dirs = [` + q(l.cdi()) + `]`,
		`  netns_mounts_under_state_dir = true`,
		// A cgroup v1 host is deprecated in containerd 2; the warning would
		// show as a third runtime condition, false.
		`  ignore_deprecation_warnings = ["io.containerd.deprecation/cgroup-v1"]`,
		`  [plugins.'io.containerd.cri.v1.runtime'.containerd]`,
		`    default_runtime_name = "runc"`,
		`    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]`,
		`      runtime_type = "io.containerd.runc.v2"`,
		`      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]`,
		`        BinaryName = ` + q(filepath.Join(l.bin(), "draconform-runc")),
		`        Root = ` + q(filepath.Join(l.containerdState(), "runc")),
		`        SystemdCgroup = false`,
		`  [plugins.'io.containerd.cri.v1.runtime'.cni]`,
		`    bin_dirs = [` + q(l.bin()) + `]`,
		`    conf_dir = ` + q(l.cniConf()),
		`    max_conf_num = 1`,
		`[plugins.'io.containerd.grpc.v1.cri']`,
		`  stream_server_address = "127.0.0.1"`,
		`  stream_server_port = "0"`,
		``,
	}, "\n")
}

// cniConfig is the pods' network: a bridge of the node's own, with
// addresses from a subnet of its own. The node makes the bridge first,
// with the subnet's first address, where its kubelet serves (makeBridge),
// which host-local, taking it for the range's gateway, gives no pod. No
// gateway for the plugin to set up, no masquerading and no port maps, so
// nothing else changes on the machine (a gateway would switch on IP
// forwarding, masquerading would write iptables rules); the suite's pods
// need no traffic at all (the test driver uses the host's network).
func cniConfig(l nodeLayout, network, bridge, subnet string) ([]byte, error) {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       network,
		"plugins": []any{map[string]any{
			"type":      "bridge",
			"bridge":    bridge,
			"isGateway": false,
			"ipMasq":    false,
			"ipam": map[string]any{
				"type":    "host-local",
				"dataDir": l.cniData(),
				"ranges":  []any{[]any{map[string]any{"subnet": subnet}}},
			},
		}},
	}
	return json.MarshalIndent(conf, "", "  ")
}

type kubeletParams struct {
	layout      nodeLayout
	nodeIP      string
	port        int
	healthzPort int
	cgroupRoot  string
	caFile      string
	certFile    string
	keyFile     string
}

// kubeletConfig renders the KubeletConfiguration. Each setting that differs
// from the default is there for this machine or for side-by-side nodes:
// a cgroup v1 host (failCgroupV1), no swap policy, no resolv.conf to copy,
// its own cgroup root, ports and directories, and no eviction or image GC,
// which could remove the imported images no registry can give back. It
// never lowers an oom_score_adj, which this machine forbids. Every
// container without a profile of its own runs under the runtime's default
// seccomp profile (seccompDefault), as the sandboxes do.
func kubeletConfig(p kubeletParams) ([]byte, error) {
	no, yes, zero := false, true, int32(0)
	cfg := kubeletv1beta1.KubeletConfiguration{
		TypeMeta:           metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		Address:            p.nodeIP,
		Port:               int32(p.port),
		ReadOnlyPort:       0,
		HealthzBindAddress: "127.0.0.1",
		HealthzPort:        ptr.To(int32(p.healthzPort)),
		TLSCertFile:        p.certFile,
		TLSPrivateKeyFile:  p.keyFile,
		Authentication: kubeletv1beta1.KubeletAuthentication{
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: &no},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: &yes},
			X509:      kubeletv1beta1.KubeletX509Authentication{ClientCAFile: p.caFile},
		},
		Authorization:                 kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook},
		CgroupDriver:                  "cgroupfs",
		CgroupRoot:                    p.cgroupRoot,
		CgroupsPerQOS:                 &yes,
		FailCgroupV1:                  &no,
		FailSwapOn:                    &no,
		SeccompDefault:                &yes,
		ContainerRuntimeEndpoint:      "unix://" + p.layout.socket(),
		ImageServiceEndpoint:          "unix://" + p.layout.socket(),
		ResolverConfig:                ptr.To(""),
		EnforceNodeAllocatable:        []string{},
		OOMScoreAdj:                   &zero,
		LocalStorageCapacityIsolation: &no,
		EvictionHard:                  map[string]string{"memory.available": "0%", "nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"},
		ImageGCHighThresholdPercent:   ptr.To(int32(100)),
		ImageGCLowThresholdPercent:    ptr.To(int32(99)),
		MakeIPTablesUtilChains:        &no,
		PodLogsDir:                    p.layout.podLogs(),
		VolumePluginDir:               filepath.Join(p.layout.dir, "volume-plugins"),
		SerializeImagePulls:           &no,
		NodeStatusUpdateFrequency:     metav1.Duration{Duration: 4 * time.Second},
		SyncFrequency:                 metav1.Duration{Duration: 10 * time.Second},
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("rendering the kubelet config: %w", err)
	}
	return data, nil
}

// writeNodeKubeconfig gives the kubelet the node's own identity, a client
// certificate for system:node:<name>, so that the API server's Node
// authorizer and NodeRestriction limit it to its node, as in a real cluster.
func writeNodeKubeconfig(path, server string, caPEM []byte, certFile, keyFile string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["node"] = &clientcmdapi.AuthInfo{ClientCertificate: certFile, ClientKey: keyFile}
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "node"}
	cfg.CurrentContext = "local"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing the kubelet's kubeconfig %s: %w", path, err)
	}
	return nil
}
