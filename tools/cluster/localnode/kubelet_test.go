package localnode

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/draconform/draconform/drivers/deploy"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

// issued records the certificates a fake control plane signed, by path.
type issued map[string]*x509.Certificate

func fakeControlPlane(t *testing.T, certs issued) ControlPlane {
	t.Helper()
	return ControlPlane{
		APIPort: 6443, CACert: "/ca.crt", CAPEM: []byte("ca"),
		Certificate: func(cn string, orgs ...string) *x509.Certificate {
			return &x509.Certificate{Subject: pkix.Name{CommonName: cn, Organization: orgs},
				ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		},
		Issue: func(tmpl *x509.Certificate, certPath, keyPath string) error {
			certs[certPath] = tmpl
			return os.WriteFile(certPath, []byte("cert"), 0o600)
		},
	}
}

// preparedNode writes a node's kubelet files into a folder of the test's,
// on the address the node takes, and returns its command line and config.
func preparedNode(t *testing.T, certs issued) (*Node, net.IP, []string, kubeletv1beta1.KubeletConfiguration) {
	t.Helper()
	n := &Node{name: "draconform-cell", id: "abc123def4567890", layout: nodeLayout{dir: t.TempDir()}, cgroupRoot: "draconform-abc123"}
	if err := os.MkdirAll(n.layout.pki(), 0o755); err != nil {
		t.Fatal(err)
	}
	addr, err := n.address()
	if err != nil {
		t.Fatal(err)
	}
	args, err := n.prepareKubelet(fakeControlPlane(t, certs), addr.IP, 40001, 40002)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(n.layout.kubeletConfig())
	if err != nil {
		t.Fatal(err)
	}
	var cfg kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatal(err)
	}
	return n, addr.IP, args, cfg
}

// The kubelet serves, and reports the node's InternalIP, on the node's
// bridge, an address of its pod subnet that no pod gets, and on no address
// of the machine's network; healthz, which the runner probes, stays on
// loopback.
func TestKubeletServesOnTheNodesBridgeOnly(t *testing.T) {
	n, ip, args, cfg := preparedNode(t, issued{})
	_, subnet, _ := net.ParseCIDR(podSubnet(n.id))
	if !subnet.Contains(ip) || ip.Equal(subnet.IP) || ip[len(ip)-1] != 1 {
		t.Errorf("the node's address %s: want the first of its pod subnet %s, host-local's gateway, which it gives no pod", ip, subnet)
	}
	lan := machineAddresses(t)
	for _, a := range append(flagValues(args, "node-ip"), flagValues(args, "address")...) {
		if lan[a] {
			t.Errorf("the kubelet's command line names %s, an address of the machine's network: %q", a, args)
		}
	}
	if got := flagValues(args, "node-ip"); len(got) != 1 || got[0] != ip.String() {
		t.Errorf("--node-ip = %q, want [%s]", got, ip)
	}
	if cfg.Address != ip.String() || lan[cfg.Address] {
		t.Errorf("the kubelet serves on %q, want the bridge's %s", cfg.Address, ip)
	}
	if cfg.HealthzBindAddress != "127.0.0.1" || cfg.HealthzPort == nil || *cfg.HealthzPort != 40002 || cfg.Port != 40001 {
		t.Errorf("healthz on %s:%v, port %d; want 127.0.0.1:40002 and 40001", cfg.HealthzBindAddress, cfg.HealthzPort, cfg.Port)
	}
}

// The kubelet talks to the API server as the node itself, by client
// certificate, so that the Node authorizer and NodeRestriction bind it to
// its own Node and pods; no token rides along that would make it anyone
// else.
func TestKubeletIdentityIsTheNodes(t *testing.T) {
	certs := issued{}
	n, ip, args, _ := preparedNode(t, certs)
	kubeconfig := flagValues(args, "kubeconfig")
	if len(kubeconfig) != 1 {
		t.Fatalf("--kubeconfig = %q", kubeconfig)
	}
	cfg, err := clientcmd.LoadFromFile(kubeconfig[0])
	if err != nil {
		t.Fatal(err)
	}
	auth := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if auth == nil || auth.Token != "" || auth.TokenFile != "" || auth.Username != "" || auth.Impersonate != "" || auth.Exec != nil {
		t.Fatalf("the kubelet's credentials are more than a client certificate: %+v", auth)
	}
	cert := certs[auth.ClientCertificate]
	if cert == nil {
		t.Fatalf("the kubelet's client certificate %s was not issued by the control plane's CA", auth.ClientCertificate)
	}
	if cert.Subject.CommonName != "system:node:"+n.name || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:nodes" {
		t.Errorf("the kubelet is %q in %q, want system:node:%s in [system:nodes]", cert.Subject.CommonName, cert.Subject.Organization, n.name)
	}
	for path, c := range certs {
		if path != auth.ClientCertificate && (len(c.IPAddresses) != 1 || !c.IPAddresses[0].Equal(ip)) {
			t.Errorf("the serving certificate %s is for %v, want the address the kubelet serves on, %s", path, c.IPAddresses, ip)
		}
	}
}

// The test driver, the one writer on the node besides the kubelet,
// reaches the API server as its service account: none of the node's
// credentials is in a folder it mounts.
func TestDriverHasNoNodeCredentials(t *testing.T) {
	n := &Node{name: "draconform-cell", id: "abc123", layout: nodeLayout{dir: "/var/lib/draconform/abc123"}}
	data, err := deploy.Render(n.driverOptions(6443))
	if err != nil {
		t.Fatal(err)
	}
	var mounted []string
	for _, m := range regexp.MustCompile(`(?m)^\s+path: (\S+)$`).FindAllStringSubmatch(string(data), -1) {
		mounted = append(mounted, m[1])
	}
	if len(mounted) == 0 || !strings.Contains(string(data), "serviceAccountName: draconform-driver") {
		t.Fatalf("no host folders or no service account in the driver's manifests:\n%s", data)
	}
	for _, secret := range []string{n.layout.pki(), n.layout.kubeconfig()} {
		for _, m := range mounted {
			if m == n.layout.dir || strings.HasPrefix(secret, m+"/") || secret == m {
				t.Errorf("the driver mounts %s, which holds the node's %s", m, secret)
			}
		}
	}
}

func flagValues(args []string, name string) []string {
	var out []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

// machineAddresses are this machine's addresses outside the nodes'
// bridges: those the machine's network reaches.
func machineAddresses(t *testing.T) map[string]bool {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, ifc := range ifaces {
		if strings.HasPrefix(ifc.Name, bridgePrefix) {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				out[ipn.IP.String()] = true
			}
		}
	}
	return out
}

// The address the kubelet takes is on the node's bridge, which the
// node makes before it, and which the CNI config names.
func TestBridgeAddress(t *testing.T) {
	got, err := bridgeAddress("10.201.2.0/24")
	if err != nil || got.String() != "10.201.2.1/24" {
		t.Errorf("bridgeAddress = %v, %v; want 10.201.2.1/24", got, err)
	}
	for _, bad := range []string{"", "fd00::/64", "10.0.0.0"} {
		if _, err := bridgeAddress(bad); err == nil {
			t.Errorf("bridgeAddress(%q): want an error", bad)
		}
	}
	if filepath.Base((&Node{logDir: "/x"}).runcLogPath()) != "draconform-runc.log" {
		t.Error("the wrapper's log is not among the node's logs")
	}
}
