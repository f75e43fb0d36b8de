// Command draconform-driver is the draconform test DRA driver.
//
//	draconform-driver [flags]     run the kubelet plugin (the DaemonSet)
//	draconform-driver print-env   print the environment, then wait for SIGTERM (the workload)
//
// Both run from the same image, so a cluster needs only one test image.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"

	"github.com/draconform/draconform/drivers/config"
	"github.com/draconform/draconform/drivers/internal/driver"
	"github.com/draconform/draconform/drivers/internal/printenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
}

// run returns the exit code: 0 on a clean stop, 1 on failure, 2 on misuse.
func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "print-env" {
		if len(args) > 1 {
			fmt.Fprintln(stderr, "print-env takes no arguments")
			return 2
		}
		if err := printenv.Run(ctx, stdout, environ); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}

	opts, kubeconfig, err := parseFlags(args, environ, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := runDriver(ctx, opts, kubeconfig); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

type flags struct {
	configPath string
	driver.Options
}

func parseFlags(args, environ []string, stderr io.Writer) (flags, string, error) {
	fs := flag.NewFlagSet("draconform-driver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	var kubeconfig string
	fs.StringVar(&f.configPath, "config", "/etc/draconform-driver/config.yaml", "device config file (YAML)")
	fs.StringVar(&f.NodeName, "node-name", lookupEnv(environ, "NODE_NAME"), "name of this node (default $NODE_NAME)")
	fs.StringVar(&f.CDIDir, "cdi-dir", "/var/run/cdi", "directory for the CDI spec files of prepared claims")
	fs.StringVar(&f.PluginDataDir, "plugin-dir", kubeletplugin.KubeletPluginsDir+"/"+driver.DriverName, "directory for the DRA gRPC socket")
	fs.StringVar(&f.RegistrarDir, "registrar-dir", kubeletplugin.KubeletRegistryDir, "kubelet plugin registration directory")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster config)")
	klog.InitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flags{}, "", err
	}
	if fs.NArg() > 0 {
		return flags{}, "", fmt.Errorf("unexpected argument %q (the only subcommand is print-env)", fs.Arg(0))
	}
	if f.NodeName == "" {
		return flags{}, "", errors.New("--node-name or $NODE_NAME is required")
	}
	return f, kubeconfig, nil
}

func runDriver(ctx context.Context, f flags, kubeconfig string) error {
	cfg, err := config.Load(f.configPath)
	if err != nil {
		return err
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("Kubernetes client config: %w", err)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("Kubernetes client: %w", err)
	}
	f.Config = cfg
	f.KubeClient = client
	logger := klog.Background()
	logger.Info("Starting", "driver", driver.DriverName, "node", f.NodeName, "devices", cfg.DeviceNames())
	if err := driver.Run(klog.NewContext(ctx, logger), f.Options); err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	logger.Info("Stopped")
	return nil
}

func lookupEnv(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
