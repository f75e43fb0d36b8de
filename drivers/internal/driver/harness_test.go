package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/draconform/draconform/drivers/config"
)

const testNode = "node-a"

// harness is a driver started as the kubelet would find it: sockets in a
// plugin and a registration directory, claims in a (fake) API server, and
// gRPC clients dialing the sockets.
type harness struct {
	kube         *fake.Clientset
	cdiDir       string
	pluginSocket string
	dra          drapb.DRAPluginClient
	registration registerapi.RegistrationClient
}

func startHarness(t *testing.T, cfg *config.Config, objects ...runtime.Object) *harness {
	t.Helper()
	// Not t.TempDir: its path contains the test name, and a Unix socket
	// path must stay under 108 bytes.
	root, err := os.MkdirTemp("", "dcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	// The kubelet owns the registration directory; it exists before any
	// plugin starts.
	if err := os.Mkdir(filepath.Join(root, "registry"), 0o755); err != nil {
		t.Fatal(err)
	}

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: testNode, UID: "node-a-uid"}}
	h := &harness{
		kube:         fake.NewClientset(append([]runtime.Object{node}, objects...)...),
		cdiDir:       filepath.Join(root, "cdi"),
		pluginSocket: filepath.Join(root, "plugin", "dra.sock"),
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	d, err := Start(ctx, Options{
		NodeName:      testNode,
		Config:        cfg,
		KubeClient:    h.kube,
		CDIDir:        h.cdiDir,
		PluginDataDir: filepath.Dir(h.pluginSocket),
		RegistrarDir:  filepath.Join(root, "registry"),
	})
	if err != nil {
		cancel()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		d.Stop()
		cancel()
	})

	h.dra = drapb.NewDRAPluginClient(dial(t, h.pluginSocket))
	h.registration = registerapi.NewRegistrationClient(dial(t, filepath.Join(root, "registry", DriverName+"-reg.sock")))
	return h
}

func dial(t *testing.T, socket string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial %s: %v", socket, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// readSpec decodes a claim's CDI spec strictly, so that a field this test
// does not know about fails it.
func (h *harness) readSpec(t *testing.T, claimUID string) (cdiSpec, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(h.cdiDir, DriverName+"-claim_"+claimUID+".json"))
	if os.IsNotExist(err) {
		return cdiSpec{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var spec cdiSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		t.Fatalf("decode CDI spec: %v\n%s", err, data)
	}
	return spec, true
}

// cdiFiles lists the CDI directory, to catch leftovers such as temp files.
func (h *harness) cdiFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(h.cdiDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
