// Command draconform-chart renders a Helm chart from its folder as `helm
// template` does (a client-only install: the chart's values schema,
// kubeVersion and fail checks, its templates, hooks after the manifests),
// with Helm's own library, so that draconform's module need not depend on
// Helm. It reads the values as JSON and writes the manifests to stdout.
//
//	draconform-chart --chart DIR --release NAME --namespace NS \
//	  --values values.json --kube-version v1.37.2 --api-versions resource.k8s.io/v1,...
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "draconform-chart:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("draconform-chart", flag.ContinueOnError)
	chartDir := fs.String("chart", "", "the chart's folder")
	name := fs.String("release", "", "the release name")
	namespace := fs.String("namespace", "", "the release namespace")
	valuesFile := fs.String("values", "", "a JSON file of values (optional)")
	kubeVersion := fs.String("kube-version", "", "the cluster's version, for .Capabilities.KubeVersion and the chart's kubeVersion")
	apiVersions := fs.String("api-versions", "", "comma-separated group/versions the cluster serves, for .Capabilities.APIVersions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *chartDir == "" || *name == "" || *namespace == "" {
		return errors.New("--chart, --release and --namespace are required")
	}
	vals := map[string]any{}
	if *valuesFile != "" {
		data, err := os.ReadFile(*valuesFile)
		if err != nil {
			return fmt.Errorf("reading the values: %w", err)
		}
		if err := json.Unmarshal(data, &vals); err != nil {
			return fmt.Errorf("reading the values %s: %w", *valuesFile, err)
		}
	}
	chrt, err := loader.Load(*chartDir)
	if err != nil {
		return fmt.Errorf("loading the chart %s: %w", *chartDir, err)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName, install.Namespace = *name, *namespace
	install.Replace = true // as helm template: no release store to check the name against
	if *kubeVersion != "" {
		kv, err := common.ParseKubeVersion(*kubeVersion)
		if err != nil {
			return fmt.Errorf("--kube-version %q: %w", *kubeVersion, err)
		}
		install.KubeVersion = kv
	}
	if *apiVersions != "" {
		install.APIVersions = common.VersionSet(strings.Split(*apiVersions, ","))
	}
	ri, err := install.Run(chrt, vals)
	if err != nil {
		return fmt.Errorf("rendering the chart %s: %w", *chartDir, err)
	}
	rel, ok := ri.(*release.Release)
	if !ok {
		return fmt.Errorf("rendering the chart %s: a release of type %T", *chartDir, ri)
	}
	fmt.Fprintln(out, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		fmt.Fprintf(out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return nil
}
