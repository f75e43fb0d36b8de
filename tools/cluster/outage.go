package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
)

// Unreachable says whether err is the API server not answering (refused,
// reset or cut connections, timeouts, "service unavailable" while it starts)
// rather than an answer: work that failed so is worth retrying once it is
// back, and a case that failed so failed for the outage, not for what the
// implementation does.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case utilnet.IsConnectionRefused(err), utilnet.IsConnectionReset(err), utilnet.IsProbableEOF(err):
		return true
	case apierrors.IsServiceUnavailable(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err):
		return true
	case errors.As(err, &ne):
		return true
	}
	return false
}

// Outage asks the API server whether it is ready, within a few seconds, and
// returns why not ("" when it answers): said beside a failure, it tells an
// outage from the implementation's answer. Where the provider sees the
// component, it says whether kube-apiserver is running at all.
func Outage(ctx context.Context, c Cluster) string {
	if c == nil {
		return ""
	}
	cfg := c.RESTConfig()
	cfg.Timeout = 3 * time.Second
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err == nil {
		return ""
	}
	why := fmt.Sprintf("the API server at %s did not answer /readyz: %v", cfg.Host, err)
	if ri, ok := c.(RunInspector); ok {
		if run, rerr := ri.CurrentRun(ctx, APIServer); rerr == nil && !run.Running {
			why += "; kube-apiserver is not running"
		}
	}
	return why
}
