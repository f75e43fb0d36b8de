package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
)

// preflightCmd checks a cluster the way a run does before its first case,
// and says what a run would create there.
func preflightCmd(fs *pflag.FlagSet) action {
	var p providerFlags
	fs.StringVar(&p.kubeconfig.Path, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then a pod's service account)")
	fs.StringVar(&p.kubeconfig.Context, "context", "", "kubeconfig context")
	fs.BoolVar(&p.kubeconfig.AllowFakeNodes, "allow-fake-nodes", false, "say what a run with --allow-fake-nodes would set off")
	return func(ctx context.Context, _ []string, s Streams) int {
		kp := &kubeconfig.Provider{Path: p.kubeconfig.Path, Context: p.kubeconfig.Context, AllowFakeNodes: p.kubeconfig.AllowFakeNodes}
		if err := preflight(ctx, kp, s.Out); err != nil {
			fmt.Fprintln(s.Err, "draconform preflight:", err)
			return 2
		}
		return 0
	}
}

// preflight checks a cluster the run did not start before anything is
// created there: the credentials load, the API server answers and accepts
// them, and the user holds every permission a run needs. It prints what it
// found and what the run will create; the error says why the run must not
// start.
func preflight(ctx context.Context, p *kubeconfig.Provider, w io.Writer) error {
	cfg, err := p.Credentials()
	if err != nil {
		return fmt.Errorf("%w: %v", access.ErrUnusable, err)
	}
	r, err := access.Check(ctx, cfg)
	describe(w, r, p.AllowFakeNodes)
	return err
}

func describe(w io.Writer, r access.Report, fakeNodes bool) {
	if r.Version == "" {
		return
	}
	fmt.Fprintf(w, "draconform: preflight of %s (Kubernetes %s) as %s: %d of %d permissions held\n", r.Server, r.Version, userOrUnknown(r.User), r.Checked-len(r.Missing), r.Checked)
	switch r.Confined {
	case "yes":
		fmt.Fprintln(w, "  writes are confined to draconform's own objects by an admission policy")
	case "no":
		fmt.Fprintf(w, "  writes are not confined: these credentials could change what draconform did not create (it never does; draconform rbac prints a policy that makes the cluster enforce it)\n")
	}
	fmt.Fprintf(w, "  a run creates, all labelled %s=<run id> and removed when each case ends:\n", access.RunLabel)
	fmt.Fprintln(w, "    a namespace per case, dc-<run id>-<case>, with its pods, ResourceClaims and quotas")
	fmt.Fprintln(w, "    DeviceClasses and ResourceSlices named dc-<run id>-<case>-*, for drivers and extended resources under dc-<run id>-<case>.draconform.test")
	if fakeNodes {
		fmt.Fprintf(w, "    Nodes with no kubelet (dc-<run id>-<case>-*), tainted %s=<run id>:NoSchedule, each renewing a Lease in %s\n", access.RunLabel, access.LeaseNamespace)
	} else {
		fmt.Fprintln(w, "    no Node: the cases that need Nodes without a kubelet skip (--allow-fake-nodes runs them)")
	}
	if fakeNodes {
		switch f := r.Followers; {
		case f == nil:
			fmt.Fprintln(w, "  DaemonSets and pending pods could not be listed: any that tolerates every taint will land on the fake Nodes")
		case len(f.DaemonSets) == 0 && len(f.PendingPods) == 0:
			fmt.Fprintln(w, "  no DaemonSet and no pending pod would land on the fake Nodes")
		default:
			if len(f.DaemonSets) > 0 {
				fmt.Fprintf(w, "  %d DaemonSets tolerate every taint and would put a pod on each fake Node, until it is deleted: %s\n", len(f.DaemonSets), strings.Join(f.DaemonSets, ", "))
			}
			if len(f.PendingPods) > 0 {
				fmt.Fprintf(w, "  %d pending pods tolerate every taint and could be bound to a fake Node, where they would never run: %s\n", len(f.PendingPods), strings.Join(f.PendingPods, ", "))
			}
		}
		if r.NodeLeases > 0 {
			fmt.Fprintf(w, "  %d Nodes renew Leases in %s, so a node lifecycle controller watches them: the fake Nodes renew theirs every 10 s\n", r.NodeLeases, access.LeaseNamespace)
		}
	}
}

func userOrUnknown(s string) string {
	if s == "" {
		return "an unknown user"
	}
	return s
}

// rbacCmd prints the manifest that lets a user run draconform and nothing
// more.
func rbacCmd(fs *pflag.FlagSet) action {
	subject := fs.String("subject", "serviceaccount:draconform/draconform", "who runs draconform: serviceaccount:NAMESPACE/NAME, user:NAME or group:NAME")
	return func(_ context.Context, _ []string, s Streams) int {
		sub, err := access.ParseSubject(*subject)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform rbac:", err)
			return 2
		}
		data, err := access.Manifest(sub)
		if err != nil {
			fmt.Fprintln(s.Err, "draconform rbac:", err)
			return 1
		}
		_, _ = s.Out.Write(data)
		return 0
	}
}
