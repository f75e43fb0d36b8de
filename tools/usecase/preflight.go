package usecase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/draconform/draconform/tools/certify/access"
	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/runner"
)

// PreflightRequest is a cluster to check before a run, as a run with
// these flags would.
type PreflightRequest struct {
	Kubeconfig      KubeconfigOptions
	AllowUnconfined bool
}

// Preflight checks a cluster the way a run does before its first case,
// and says on w what a run would create there.
func Preflight(ctx context.Context, r PreflightRequest, w io.Writer) error {
	kp, err := providers.New(ctx, providers.Config{Name: "kubeconfig", Kubeconfig: r.Kubeconfig})
	if err != nil {
		return failed(2, err)
	}
	if _, err := preflight(ctx, kp, r.AllowUnconfined, w); err != nil {
		return failed(2, err)
	}
	return nil
}

// preflight checks a cluster the run did not start before anything is
// created there: the credentials load, the API server answers and accepts
// them, the user holds every permission a run needs, and draconform's
// current admission policy confines its writes (or allowUnconfined says
// to write anyway). It prints what it found and what the run will create;
// the error says why the run must not start.
func preflight(ctx context.Context, p cluster.Provider, allowUnconfined bool, w io.Writer) (bundle.Access, error) {
	acc := bundle.Access{Cluster: bundle.ClusterVisited}
	cfg, err := p.Credentials()
	if err != nil {
		return acc, fmt.Errorf("%w: %v", access.ErrUnusable, err)
	}
	r, err := access.Check(ctx, cfg)
	describe(w, r, p.Info().NoFakeNodes == "")
	if err != nil {
		return acc, err
	}
	acc.Confined = r.Confined
	if r.Confined == access.ConfinedCurrent {
		return acc, nil
	}
	if !allowUnconfined {
		return acc, unconfined(r)
	}
	acc.Unconfined = true
	fmt.Fprintln(w, "  --allow-unconfined: the run writes anyway, and its output (a certify bundle's access.json and README) records it")
	return acc, nil
}

// errUnconfined refuses a run on a cluster that does not hold its writes
// to what it creates.
var errUnconfined = errors.New("writes are not confined")

func unconfined(r access.Report) error {
	found := map[string]string{
		access.Unconfined:      "nothing refused a dry-run namespace that is not draconform's",
		access.ConfinedOlder:   "it is confined by an older policy of draconform's, which lets through writes today's refuses (apply draconform rbac again)",
		access.ConfinedUnknown: "a dry-run namespace that is not draconform's was refused, but not by draconform's admission policy, so what it confines cannot be told",
	}[r.Confined]
	if r.ConfinedWhy != "" && r.Confined != access.ConfinedOlder {
		found = r.ConfinedWhy
	}
	return fmt.Errorf("%w: refusing to write to %s as %s, whose writes draconform's admission policy does not confine: %s. "+
		"Its credentials could change what the run did not create. Either apply what `draconform rbac --subject ...` prints for this identity "+
		"(kubectl apply -f -: the role a run needs and the policy that confines it), or give --allow-unconfined to run anyway (a certify bundle then records it)",
		errUnconfined, r.Server, r.Who(), found)
}

func describe(w io.Writer, r access.Report, fakeNodes bool) {
	if r.Version == "" {
		return
	}
	fmt.Fprintf(w, "draconform: preflight of %s (Kubernetes %s) as %s: %d of %d permissions held\n", r.Server, r.Version, userOrUnknown(r.User), r.Checked-len(r.Missing), r.Checked)
	switch r.Confined {
	case access.ConfinedCurrent:
		fmt.Fprintln(w, "  writes are confined to draconform's own objects by its admission policy")
	case access.ConfinedOlder:
		fmt.Fprintln(w, "  writes are confined by an older policy of draconform's: apply `draconform rbac` again (it lets through writes today's refuses)")
	case access.Unconfined:
		fmt.Fprintf(w, "  writes are not confined: these credentials could change what draconform did not create (it never does; draconform rbac prints a policy that makes the cluster enforce it)\n")
	case access.ConfinedUnknown:
		fmt.Fprintln(w, "  writes are refused by something other than draconform's admission policy: what it confines cannot be told")
	}
	if r.Confined != access.ConfinedCurrent && r.ConfinedWhy != "" {
		fmt.Fprintf(w, "    found: %s\n", r.ConfinedWhy)
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
		describeFollowers(w, r.Followers)
		if r.NodeLeases > 0 {
			fmt.Fprintf(w, "  %d Nodes renew Leases in %s, so a node lifecycle controller watches them: the fake Nodes renew theirs every 10 s\n", r.NodeLeases, access.LeaseNamespace)
		}
	}
}

// describeFollowers says what would land on the fake Nodes, as far as the
// credentials could list it.
func describeFollowers(w io.Writer, f *access.Followers) {
	switch {
	case f == nil:
		fmt.Fprintln(w, "  DaemonSets and pending pods could not be listed: any that tolerates every taint will land on the fake Nodes")
		return
	case len(f.DaemonSets) == 0 && len(f.PendingPods) == 0 && f.PendingUnread == "":
		fmt.Fprintln(w, "  no DaemonSet and no pending pod would land on the fake Nodes")
		return
	case len(f.DaemonSets) > 0:
		fmt.Fprintf(w, "  %d DaemonSets tolerate every taint and would put a pod on each fake Node, until it is deleted: %s\n", len(f.DaemonSets), strings.Join(f.DaemonSets, ", "))
	default:
		fmt.Fprintln(w, "  no DaemonSet would land on the fake Nodes")
	}
	if len(f.PendingPods) > 0 {
		fmt.Fprintf(w, "  %d pending pods tolerate every taint and could be bound to a fake Node, where they would never run: %s\n", len(f.PendingPods), strings.Join(f.PendingPods, ", "))
	}
	if f.PendingUnread != "" {
		fmt.Fprintln(w, "  pending pods were not listed: these credentials read pods only in the run's own namespaces (draconform rbac); an administrator's draconform preflight lists those a fake Node would draw")
	}
}

func userOrUnknown(s string) string {
	if s == "" {
		return "an unknown user"
	}
	return s
}

// RBAC is the manifest that lets subject run draconform and nothing more.
func RBAC(subject string) ([]byte, error) {
	sub, err := access.ParseSubject(subject)
	if err != nil {
		return nil, failed(2, err)
	}
	return access.Manifest(sub)
}

// preflightAll checks each cluster the run did not start: it says what the
// run will do there, and refuses once, before any case, if it cannot. The
// run (not its shards, which the run checked for) records what it found
// in its folder, where certify's bundle takes it from.
func preflightAll(ctx context.Context, targets []runner.Target, r RunRequest, outDir string, w io.Writer) error {
	// The embedded control planes and kind start their clusters, with
	// credentials of their own: there is nothing of anyone else's to
	// confine. kind restarts components by editing static pods, which no
	// confined identity could do.
	acc := bundle.Access{Cluster: bundle.ClusterStarted}
	for _, t := range targets {
		if t.Provider.Info().Visits {
			a, err := preflight(ctx, t.Provider, r.Providers.AllowUnconfined, w)
			if err != nil {
				return err
			}
			acc = a
			if err := waitForProfileDriver(ctx, t.Provider, r, w); err != nil {
				return err
			}
		}
	}
	return bundle.WriteAccess(outDir, acc)
}

// profileDriverWait is how long a run waits for the profile's driver to
// publish devices on a cluster it visits.
const profileDriverWait = 3 * time.Minute

// waitForProfileDriver waits until the driver of the run's profile
// publishes devices: one installed a moment before (helm install --wait
// returns once its pods run) would otherwise have every case on its
// devices skip, and the claim fail for a race, not for the driver.
func waitForProfileDriver(ctx context.Context, p cluster.Provider, r RunRequest, w io.Writer) error {
	profile, err := r.driverProfile()
	if err != nil || profile == nil {
		return err
	}
	cfg, err := p.Credentials()
	if err != nil {
		return fmt.Errorf("%w: %v", access.ErrUnusable, err)
	}
	fmt.Fprintf(w, "  waiting (at most %s) for %s, the driver of profile %s, to publish devices on a Ready node\n", profileDriverWait, profile.Driver, profile.Name)
	began := time.Now()
	nodes, err := probe.WaitForDriver(ctx, cfg, profile.Driver, profileDriverWait, 2*time.Second)
	switch {
	case err != nil:
		return fmt.Errorf("waiting for %s to publish devices: %w", profile.Driver, err)
	case len(nodes) == 0:
		fmt.Fprintf(w, "  %s published no devices on a Ready node in %s: the driver-profile cases will skip, and a claim that needs them is not met\n", profile.Driver, profileDriverWait)
	default:
		fmt.Fprintf(w, "  %s publishes devices on %s (after %.0fs)\n", profile.Driver, strings.Join(nodes, ", "), time.Since(began).Seconds())
	}
	return nil
}
