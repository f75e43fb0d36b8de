//go:build tools

// Package exampledriverbin pins the Kubernetes SIG's example DRA driver,
// sigs.k8s.io/dra-example-driver, whose kubelet plugin draconform builds
// from the module proxy and runs on the embedded node as a driver nobody
// here wrote (issue 38). It is its own module so that the suite never
// depends on the driver or on Helm, whose Go library cmd/draconform-chart
// renders the driver's chart with. `go install ...@v0.4.0` is refused here
// (the proxy does not list the module's versions), while a module that
// requires it builds it. Helm's own CLI is built here too (draconform clis
// helm), so that helm install runs the Helm the chart renderer is built
// with.
package exampledriverbin

import (
	_ "helm.sh/helm/v4/cmd/helm"
	_ "sigs.k8s.io/dra-example-driver/cmd/dra-example-kubeletplugin"
)
