//go:build tools

// Package sonobuoybin pins Sonobuoy, whose CLI (sonobuoy run, retrieve,
// results, delete) runs draconform's plugin in a cluster, and whose image
// (the aggregator and the workers' sidecar) draconform image --of sonobuoy
// makes from the same static binary: no registry serves sonobuoy/sonobuoy
// here. It is its own module so that Sonobuoy's dependencies (an older
// client-go among them) never move those of the suite.
package sonobuoybin

import _ "github.com/vmware-tanzu/sonobuoy"
