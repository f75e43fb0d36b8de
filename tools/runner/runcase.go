package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // ginkgo's DSL reads best unqualified.
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/probe"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/draconform/draconform/tools/report"
)

// runCase is a case's ginkgo spec: it takes the result of the case if it
// ran beforehand beside others (see casePool), or runs it now, and hands
// the result to ginkgo.
func runCase(ctx SpecContext, s *session, c plan.Case) {
	r, err := s.pool.result(ctx, c)
	if err != nil {
		Fail(err.Error())
	}
	if r == nil {
		r = execCase(ctx, s, c, true)
	}
	r.replay()
}

// execCase runs one case and records what it did. live writes its log
// through to ginkgo as it goes (a case run inside its own spec).
func execCase(ctx context.Context, s *session, c plan.Case, live bool) *caseResult {
	r := newCaseResult(live)
	began := time.Now()
	defer func() {
		r.seconds = time.Since(began).Seconds()
		r.add(report.EntrySeconds, r.seconds, true)
		s.failFast.saw(c, r)
	}()
	r.add(report.EntryKey, c.Key(), true)
	r.add(report.EntryBegan, began.UTC().Format(time.RFC3339Nano), true)
	if s.failFast.stopped() != "" {
		return s.failFast.notRun(r)
	}
	s.caseBegins(c.Target, c.Cell.Name)
	st, cl, clients, err := s.cluster(c.Target, c.Cell.Name)
	if endsBeforeSteps(s, c, st, err, r) {
		return r
	}
	env, err := newEnv(s, c, st, cl, clients, r)
	if err != nil {
		return r.fail(err.Error())
	}
	ph := &steps.Phases{}
	// Recorded after the clean-up, which is one of the parts.
	defer recordPhases(r, env, ph)
	defer finishCase(steps.WithPhases(ctx, ph), s, c, env, r, st)
	caseCtx, cancel := context.WithTimeout(steps.WithPhases(ctx, ph), s.opts.CaseTimeout)
	defer cancel()
	if err := caseSteps(caseCtx, env, c, st.Discarded, r); err != nil {
		if no := gatesNotOffered(err); no != nil {
			r.cause(report.CauseGatesNotOffered)
			r.inapplicable()
			return r.skipped(no.Error())
		}
		if endNotApplicable(r, err) {
			return r
		}
		if caseCtx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("the case ran past --case-timeout (%s): %w", s.opts.CaseTimeout, err)
		}
		return r.fail(err.Error())
	}
	return r
}

// endsBeforeSteps ends the case, and says so, where its cell's cluster
// cannot run it: the cluster failed to start, refused or contradicts its
// gates, the case's node is down, or a requirement is unmet.
func endsBeforeSteps(s *session, c plan.Case, st *cellState, err error, r *caseResult) bool {
	switch {
	case err != nil:
		r.cause(report.CauseCellStart)
		r.fail(fmt.Sprintf("cell %s: %v", c.Cell.Name, err))
		return true
	case st.Unsupported != "":
		r.cause(report.CauseCellUnsupport)
		r.inapplicable()
		r.skipped(st.Unsupported)
		return true
	case st.Failed != "":
		if st.FailedCause != "" {
			r.cause(st.FailedCause)
		} else {
			r.cause(report.CauseCellStart)
		}
		r.fail("cell " + c.Cell.Name + ": the cluster failed to start: " + st.Failed)
		return true
	case st.Refused != "":
		r.cause(report.CauseStartRefused)
		r.add(report.EntryNote, "the control plane refused to start with this cell's gates (accepted): "+st.Refused, false)
		r.printf("outcome: the control plane refused to start with these gates: %s\n", st.Refused)
		return true
	case st.Contradicted != "":
		// Skipping here would hand a green run to a control plane that,
		// say, loses the field with its gate on.
		r.cause(report.CauseContradicted)
		r.fail("cell " + c.Cell.Name + ": the cluster is not in the state its gates promise, so no case of the cell can pass: " + st.Contradicted)
		return true
	}
	if c.Case.Requires.Kubelet() && st.NodeFailed != "" {
		r.cause(report.CauseNodeStart)
		r.fail("cell " + c.Cell.Name + ": the kubelet node this case needs failed to start: " + st.NodeFailed)
		return true
	}
	if u := unmet(c, st, s.opts.Profile); u.reason != "" {
		if c.Case.Requires.Kubelet() && st.NoNode != "" {
			u.reason += "; " + st.NoNode
		}
		r.cause(u.cause)
		if u.inapplicable {
			r.inapplicable()
		}
		r.skipped(u.reason)
		return true
	}
	return false
}

// caseSteps makes the case's namespace and given objects, runs its steps
// (and a gap's closed steps where the step pinning it fails), then checks
// the capacity invariant. discarded says the cluster goes with the run
// (cluster.Info.Discards).
func caseSteps(ctx context.Context, env *steps.Env, c plan.Case, discarded bool, r *caseResult) error {
	if err := timedPhase(ctx, steps.PhaseNamespace, func(ctx context.Context) error { return createNamespace(ctx, env, discarded) }); err != nil {
		return err
	}
	for i := range c.Case.Given {
		use := &c.Case.Given[i]
		if err := try(ctx, env, r, &steps.Write{Verb: "create", Spec: &spec.Write{ObjectUse: *use}}, "given", use.Pos); err != nil {
			return err
		}
	}
	if err := stepsOrGap(ctx, env, r, c.Case); err != nil {
		return err
	}
	if slices.Contains(c.Cell.Released, string(cluster.Scheduler)) {
		// A scheduler that predates the KEP cannot carry the field; what
		// it does instead is what the cell's cases pin.
		r.printf("invariant not checked: this cell's kube-scheduler is a released binary that predates KEP-6406\n")
		return nil
	}
	return try(ctx, env, r, steps.CapacityInvariant{}, "invariant", c.Case.Pos)
}

// finishCase writes a failed case's diagnostics, then cleans up (keeping a
// failed case's namespace with --keep-on-failure, where st says how to
// reach it), in a
// context of its own: a case cut short by its timeout or an interrupt
// must still leave nothing behind.
func finishCase(ctx context.Context, s *session, c plan.Case, env *steps.Env, r *caseResult, st *cellState) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBound(c))
	defer cancel()
	if r.failure != "" {
		path, derr := writeDiagnostics(cctx, env, c, r.failure, s.opts.OutDir, s.opts.Rerun)
		if derr != nil {
			r.printf("diagnostics incomplete: %v\n", derr)
		}
		if path != "" {
			r.add(report.EntryDiagnostics, path, false)
			r.printf("diagnostics of %s: %s\n", c.Title(), path)
		}
	}
	if err := timedPhase(cctx, steps.PhaseCleanup, func(ctx context.Context) error { return cleanUp(ctx, s.opts.KeepOnFailure, env, r, st) }); err != nil {
		r.printf("cleanup of %s: %v\n", c.ID, err)
	}
	// After the clean-up, which measures the restores of restarts.
	for _, m := range env.Measurements() {
		r.add(report.EntryMeasurement, m, false)
	}
}

// endNotApplicable ends the case as a skip that does not apply to this
// cluster, which verdicts leave out, when a step said it cannot check what
// it promises here: that is no pass. It reports whether it did.
func endNotApplicable(r *caseResult, err error) bool {
	na, ok := steps.AsNotApplicable(err)
	if !ok {
		return false
	}
	r.printf("%v\n", err)
	r.cause(na.Cause)
	r.inapplicable()
	r.skipped(na.Reason)
	return true
}

// stepsOrGap runs the case's steps. A case that pins a gap passes with the
// gap present when they all pass; when the one step marked pinsGap fails,
// the gap's closed steps run instead of it and the steps after it. Any
// other failure is the case's: a step that does not pin the gap failing
// says nothing about whether the cluster closed it.
func stepsOrGap(ctx context.Context, env *steps.Env, r *caseResult, c *spec.Case) error {
	failedAt, err := runSteps(ctx, env, r, c.Steps, "step")
	switch {
	case err == nil:
		if c.Gap != nil {
			r.add(report.EntryGap, "present", false)
			r.add(report.EntryNote, "gap present: "+c.Gap.Present, false)
		}
		return nil
	case c.Gap == nil || steps.IsNotApplicable(err) || gatesNotOffered(err) != nil:
		// A case that does not apply here has no gap to judge either.
		return err
	case failedAt < 0 || !c.Steps[failedAt].PinsGap:
		pin := pinnedStep(c)
		return fmt.Errorf("%w\n(gap.closed does not run: only a failure of the step that pins the gap, step %d at %s:%d, may mean this cluster closed it)", err, pin+1, c.Steps[pin].Pos.File, c.Steps[pin].Pos.Line)
	}
	return gapClosed(ctx, env, r, c.Gap, err)
}

// pinnedStep is the index of the step marked pinsGap; the loader makes
// sure a case with a gap has exactly one.
func pinnedStep(c *spec.Case) int {
	for i := range c.Steps {
		if c.Steps[i].PinsGap {
			return i
		}
	}
	return -1
}

// gapClosed runs a gap's closed steps after the step that pins the gap
// failed: the cluster passes if it closed the gap the way the KEP would
// have it, and fails only if it does neither.
func gapClosed(ctx context.Context, env *steps.Env, r *caseResult, gap *spec.Gap, pinned error) error {
	r.printf("the step pinning the gap failed; checking that this cluster closed it:\n%v\n", pinned)
	if _, err := runSteps(ctx, env, r, gap.Closed, "gap.closed step"); err != nil {
		if steps.IsNotApplicable(err) || gatesNotOffered(err) != nil {
			return err
		}
		return fmt.Errorf("this cluster neither has the gap the case pins (%s) nor closed it:\nthe step pinning the gap failed: %v\nand gap.closed failed: %w", gap.Present, pinned, err)
	}
	r.add(report.EntryGap, "closed", false)
	r.add(report.EntryNote, "gap closed in this cluster (the step pinning it failed: "+OneLine(pinned.Error(), 400)+")", false)
	return nil
}

// runSteps runs steps in order and returns the first failure with the
// index of the step that failed (-1 where the step could not be built).
//
// A step that cannot check what it promises on this cluster (a scheduler
// whose attempts nothing shows) skips itself, not the steps after it: they
// still run, so that a mistake they catch fails the case there too. If
// they all pass, the case does not apply, with the first such step's
// reason, since one of its promises went unchecked; it never passes.
func runSteps(ctx context.Context, env *steps.Env, r *caseResult, list []spec.Step, what string) (int, error) {
	var unchecked error
	for i := range list {
		sp := &list[i]
		step, err := steps.Build(sp)
		if err != nil {
			return -1, err
		}
		err = try(ctx, env, r, step, fmt.Sprintf("%s %d", what, i+1), sp.Pos)
		switch {
		case err == nil:
		case steps.IsNotApplicable(err):
			r.printf("%s %d cannot check what it promises here; the steps after it still run:\n%v\n", what, i+1, err)
			if unchecked == nil {
				unchecked = err
			}
		default:
			return i, err
		}
	}
	return -1, unchecked
}

func try(ctx context.Context, env *steps.Env, r *caseResult, step steps.Step, what string, pos spec.Pos) error {
	r.step(fmt.Sprintf("%s: %s (%s:%d)", what, step.Describe(), pos.File, pos.Line))
	if err := step.Run(ctx, env); err != nil {
		if why := cluster.Outage(ctx, env.Cluster); why != "" {
			// Said first: the step's own words would read as the
			// implementation's answer.
			return fmt.Errorf("%s at %s:%d, %s: failed during an API server outage (%s):\n%w", what, pos.File, pos.Line, step.Describe(), why, err)
		}
		return fmt.Errorf("%s at %s:%d, %s:\n%w", what, pos.File, pos.Line, step.Describe(), err)
	}
	return nil
}

// OneLine folds an error onto one line, cut at max bytes, for a note.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// unmetRequirement is why a case cannot be meaningful on this cluster: a
// stable cause for the golden table, the reason in full, and whether the
// case does not apply here at all (a state of the cluster, which verdicts
// leave out) rather than lacks what it needs (which blocks a claim).
type unmetRequirement struct {
	cause, reason string
	inapplicable  bool
}

// unmet says why a case cannot be meaningful on this cluster; the zero value
// when it can. profile is the run's driver profile (Register sets one).
func unmet(c plan.Case, st *cellState, profile *spec.DriverProfile) unmetRequirement {
	caps := st.Caps
	r := c.Case.Requires
	if r.CapacityRequestsField != "" && r.CapacityRequestsField != caps.CapacityRequestsField {
		return unmetRequirement{fmt.Sprintf("needs extendedResourceCapacityRequests %s, found %s", r.CapacityRequestsField, caps.CapacityRequestsField),
			fmt.Sprintf("needs an API server where extendedResourceCapacityRequests is %s; here it is %s (%s)", r.CapacityRequestsField, caps.CapacityRequestsField, caps.Describe()), true}
	}
	if r.ConsumableCapacity != "" && r.ConsumableCapacity != caps.ConsumableCapacity {
		return unmetRequirement{fmt.Sprintf("needs DRAConsumableCapacity fields %s, found %s", r.ConsumableCapacity, caps.ConsumableCapacity),
			fmt.Sprintf("needs DRAConsumableCapacity fields %s; here they are %s", r.ConsumableCapacity, caps.ConsumableCapacity), true}
	}
	for _, g := range []struct{ gate, want, got string }{
		{"DRADeviceTaints", r.DeviceTaints, caps.DeviceTaints},
		{"DRAPartitionableDevices", r.PartitionableDevices, caps.PartitionableDevices},
	} {
		// A gate KEP-6406 does not depend on: off, the case does not apply
		// (a conformant cluster may have it off), and it blocks nothing.
		if g.want != "" && g.got != "" && g.want != g.got {
			return unmetRequirement{fmt.Sprintf("needs %s fields %s, found %s", g.gate, g.want, g.got),
				fmt.Sprintf("needs an API server that keeps the fields of %s (%s); here they are %s, and KEP-6406 does not depend on that gate", g.gate, g.want, g.got), true}
		}
	}
	for _, gv := range c.APIVersions {
		if !caps.Serves(gv) {
			return unmetRequirement{"needs " + gv + " served",
				"goes through " + gv + ", which this API server does not serve (its beta versions are off by default: --runtime-config=" + gv + "=true turns it on)", false}
		}
	}
	// The driver-profile cases run on the test driver unless a profile
	// names another one.
	onTestDriver := r.TestDriver || (r.DriverProfile && profile.Driver == probe.TestDriverName)
	if r.TestDriver && profile.Driver != probe.TestDriverName && len(caps.TestDriverNodes) == 0 {
		// A vendor's cluster need not run draconform's privileged test
		// driver: the driver-profile cases check pods that really run with
		// their share on the vendor's own driver instead.
		return unmetRequirement{"needs the test driver; the driver-profile cases stand in for it on the profile's driver",
			"checks the test driver's own devices and variables; this cluster has none of its nodes, and the run's driver profile " + profile.Name + " (" + profile.Driver + ") is checked on real nodes by the driver-profile cases instead", true}
	}
	if onTestDriver && len(caps.TestDriverNodes) == 0 {
		return unmetRequirement{"needs nodes with the test driver",
			"needs nodes with a running kubelet where the draconform test driver (" + probe.TestDriverName + ") publishes devices, so that pods really start; this cluster has none (the embedded providers add such a node where the machine can run one; elsewhere deploy drivers/deploy/testdriver.yaml, use --provider kind, or give --driver-profile for another driver)", false}
	}
	if r.DriverProfile && !onTestDriver && !publishes(st.Facts, profile.Driver) {
		return unmetRequirement{"needs devices of the profile's driver",
			"needs nodes where " + profile.Driver + ", the driver of profile " + profile.Name + ", publishes devices; the cluster's ResourceSlices name none", false}
	}
	if c.FakeNodes && st.NoFakeNodes != "" {
		return unmetRequirement{"needs consent to create fake Nodes", st.NoFakeNodes, false}
	}
	if c.Serial && !caps.Restart {
		return unmetRequirement{"needs component restarts", "restarts a component, which this provider cannot do", true}
	}
	if why := refusedRestart(c, st); why != "" {
		return unmetRequirement{report.CauseGatesNotOffered, why, true}
	}
	return unmetRequirement{}
}

// cause records why the case ends as it is about to, for the golden table.
func (r *caseResult) cause(why string) { r.add(report.EntryCause, why, false) }

// inapplicable records that the case is skipped because it does not apply
// to this cluster, which verdicts leave out.
func (r *caseResult) inapplicable() { r.add(report.EntryInapplicable, true, false) }

func newEnv(s *session, c plan.Case, st *cellState, cl cluster.Cluster, clients *steps.Clients, log io.Writer) (*steps.Env, error) {
	env, err := steps.NewEnv(steps.EnvConfig{
		Cluster: cl, Clients: clients, RunID: s.opts.RunID, CaseHash: c.Hash(), BaseGates: st.Gates,
		ProfileVars: s.profileVars, SuiteVars: c.Suite.Vars, CaseVars: c.Case.Vars, Fixtures: s.opts.Bundle.Fixtures, Log: log,
		FakeNodes: c.FakeNodes,
	})
	if err != nil {
		// The variables are the suite's: say where they are written.
		return nil, fmt.Errorf("%s (%s): %w", c.ID, c.Suite.Pos.File, err)
	}
	return env, nil
}

// podSecurityLabel enforces a Pod Security level on a case's namespace:
// "restricted", which every pod a step makes meets (steps/object.go sets
// its security context), and which draconform rbac's admission policy
// requires of the runner's namespaces, so that its identity cannot make a
// namespace where a privileged pod would be admitted.
const podSecurityLabel = "pod-security.kubernetes.io/enforce"

// createNamespace gives the case its own namespace, lets the runner read
// its pods there, and waits for its default ServiceAccount, without which
// the API server refuses pods.
func createNamespace(ctx context.Context, env *steps.Env, discarded bool) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   env.Namespace,
		Labels: map[string]string{steps.RunLabel: env.RunID, steps.CaseLabel: env.CaseHash, podSecurityLabel: "restricted"},
	}}
	core := env.Clients.Kube.CoreV1()
	if _, err := core.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", env.Namespace, err)
	}
	what := "delete namespace " + env.Namespace
	if discarded {
		what = "delete the pods of namespace " + env.Namespace + " (the namespace goes with the cluster)"
	}
	env.DeferInNamespace(what, func(ctx context.Context) error {
		// The case's pods never run (their nodes have no kubelet to confirm
		// a graceful deletion), so they go at once, and the namespace with them.
		if err := core.Pods(env.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
			return fmt.Errorf("deleting the pods of %s: %w", env.Namespace, err)
		}
		if discarded {
			return nil
		}
		err := core.Namespaces().Delete(ctx, env.Namespace, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	// draconform rbac's runner reads pods only where it binds that.
	if err := env.GrantReads(ctx); err != nil {
		return err
	}
	sa := env.Clients.Dyn.Resource(corev1.SchemeGroupVersion.WithResource("serviceaccounts")).Namespace(env.Namespace)
	if err := steps.WaitExists(ctx, sa, "default", 30*time.Second); err != nil {
		return fmt.Errorf("namespace %s has no default ServiceAccount (is the serviceaccount controller running?): %w", env.Namespace, err)
	}
	return nil
}

// cleanupBound bounds a case's cleanup. A case that restarted a component
// restores the cell's gates there, restarting the API server and the
// components after it; cut short, that leaves the cell without an API
// server for every later case, so it gets more room: on a starved machine
// (load average 40 on 2 cores) one restore took over 2 minutes.
func cleanupBound(c plan.Case) time.Duration {
	if c.Serial {
		return 6 * time.Minute
	}
	return 2 * time.Minute
}

// publishes says whether the cluster's ResourceSlices, as read when its
// cell started, name driver on a node.
func publishes(f *probe.Facts, driver string) bool {
	if f == nil {
		return false
	}
	for _, s := range f.ResourceSlices {
		if d, _ := s.Spec["driver"].(string); d == driver {
			return true
		}
	}
	return false
}
