// Package driver is the draconform test DRA driver: it publishes the
// configured devices in a ResourceSlice for its node and, when the kubelet
// prepares a claim, hands the container a CDI device whose environment says
// exactly what was allocated (see package envcontract).
package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/klog/v2"

	"github.com/draconform/draconform/drivers/config"
	"github.com/draconform/draconform/drivers/envcontract"
	"github.com/draconform/draconform/drivers/mutant"
)

// DriverName is the name under which the driver registers and publishes.
const DriverName = envcontract.DriverName

// Options configure a driver instance.
type Options struct {
	// NodeName is the node the driver runs on; its pool is named after it.
	NodeName string
	// Config lists the devices to publish.
	Config *config.Config
	// KubeClient reads claims and writes ResourceSlices.
	KubeClient kubernetes.Interface
	// CDIDir receives one CDI spec file per prepared claim.
	CDIDir string
	// PluginDataDir holds the dra.sock socket the kubelet calls. Default:
	// /var/lib/kubelet/plugins/testdriver.draconform.dev.
	PluginDataDir string
	// RegistrarDir is where the kubelet looks for registration sockets.
	// Default: /var/lib/kubelet/plugins_registry.
	RegistrarDir string
}

// Driver is a running driver instance.
type Driver struct {
	helper   *kubeletplugin.Helper
	nodeName string
	devices  map[string]bool
	config   *config.Config
	cdi      cdiDir
	// fatal carries the first error after which the driver cannot serve.
	fatal chan error
}

var _ kubeletplugin.DRAPlugin = &Driver{}

// Run starts the driver and serves until ctx is canceled (a clean stop) or
// the driver fails.
func Run(ctx context.Context, o Options) error {
	d, err := Start(ctx, o)
	if err != nil {
		return err
	}
	defer d.Stop()
	select {
	case <-ctx.Done():
		return nil
	case err := <-d.fatal:
		return err
	}
}

// Start registers the driver with the kubelet and starts publishing its
// ResourceSlice. Call Stop when done.
func Start(ctx context.Context, o Options) (*Driver, error) {
	if err := o.prepare(ctx); err != nil {
		return nil, err
	}

	d := &Driver{
		nodeName: o.NodeName,
		devices:  map[string]bool{},
		config:   o.Config,
		cdi:      cdiDir(o.CDIDir),
		fatal:    make(chan error, 1),
	}
	for _, name := range o.Config.DeviceNames() {
		d.devices[name] = true
	}
	helper, err := kubeletplugin.Start(ctx, d,
		kubeletplugin.DriverName(DriverName),
		kubeletplugin.NodeName(o.NodeName),
		kubeletplugin.KubeClient(o.KubeClient),
		kubeletplugin.PluginDataDirectoryPath(o.PluginDataDir),
		kubeletplugin.RegistrarDirectoryPath(o.RegistrarDir),
		// Kubelets with consumable capacity (1.34+) speak v1; serving only
		// v1 lets the interceptor below cover every prepare call.
		kubeletplugin.NodeV1beta1(false),
		kubeletplugin.HealthService(false),
		kubeletplugin.GRPCInterceptor(perClaimPrepareErrors),
	)
	if err != nil {
		return nil, fmt.Errorf("start kubelet plugin: %w", err)
	}
	d.helper = helper
	if err := helper.PublishResources(ctx, driverResources(o.Config, o.NodeName)); err != nil {
		helper.Stop()
		return nil, fmt.Errorf("publish resources: %w", err)
	}
	return d, nil
}

// prepare checks the options, fills in the kubelet's default directories
// and makes the ones the kubelet does not.
func (o *Options) prepare(ctx context.Context) error {
	switch {
	case o.NodeName == "":
		return errors.New("node name is required")
	case o.Config == nil:
		return errors.New("config is required")
	case o.KubeClient == nil:
		return errors.New("Kubernetes client is required")
	case o.CDIDir == "":
		return errors.New("CDI directory is required")
	}
	if err := o.Config.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if m := mutant.Active; m != "" {
		if _, known := mutant.Known[m]; !known {
			return fmt.Errorf("built as unknown mutant %q", m)
		}
		klog.FromContext(ctx).Info("DELIBERATELY BROKEN BUILD, for draconform mutation", "mutant", m, "mistake", mutant.Known[m])
	}
	if o.PluginDataDir == "" {
		o.PluginDataDir = filepath.Join(kubeletplugin.KubeletPluginsDir, DriverName)
	}
	if o.RegistrarDir == "" {
		o.RegistrarDir = kubeletplugin.KubeletRegistryDir
	}
	// The kubelet does not create the plugin's own directories; the CDI
	// directory may not exist before the first CDI driver runs on a node.
	for _, dir := range []string{o.PluginDataDir, o.CDIDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create directory: %w", err)
		}
	}
	return nil
}

// Stop unregisters the driver and stops publishing. Published slices stay:
// a restarted driver takes them over.
func (d *Driver) Stop() {
	d.helper.Stop()
}

// driverResources puts all devices into one slice of the node's pool.
func driverResources(cfg *config.Config, nodeName string) resourceslice.DriverResources {
	return resourceslice.DriverResources{
		Pools: map[string]resourceslice.Pool{
			nodeName: {Slices: []resourceslice.Slice{{Devices: cfg.APIDevices()}}},
		},
	}
}

// HandleError implements kubeletplugin.DRAPlugin. Publishing errors (for
// example fields dropped by an API server whose DRAConsumableCapacity gate is
// off) are logged and the driver keeps serving what was stored: the suite
// probes the cluster's capabilities itself, and a crashing driver would only
// hide the node from it.
func (d *Driver) HandleError(ctx context.Context, err error, msg string) {
	utilruntime.HandleErrorWithContext(ctx, err, msg)
	if errors.Is(err, kubeletplugin.ErrRecoverable) {
		return
	}
	select {
	case d.fatal <- fmt.Errorf("%s: %w", msg, err):
	default:
	}
}

// WatchHealthStatus implements kubeletplugin.DRAPlugin. The health service
// is turned off at Start, so this is never called by the helper.
func (d *Driver) WatchHealthStatus(context.Context, chan<- kubeletplugin.DeviceHealthReport) error {
	return kubeletplugin.ErrHealthNotSupported
}
