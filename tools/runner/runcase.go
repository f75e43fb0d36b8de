package runner

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // ginkgo's DSL reads best unqualified.
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/plan"
	"github.com/draconform/draconform/tools/spec"
)

func runCase(ctx SpecContext, s *session, c plan.Case) {
	st, cl, clients, err := s.cluster(c.Target, c.Cell.Name)
	switch {
	case err != nil:
		Fail(fmt.Sprintf("cell %s: %v", c.Cell.Name, err))
	case st.Unsupported != "":
		Skip(st.Unsupported)
	case st.Failed != "":
		Fail("cell " + c.Cell.Name + ": the cluster failed to start: " + st.Failed)
	case st.Refused != "":
		AddReportEntry("outcome", "the control plane refused to start with this cell's gates (accepted): "+st.Refused)
		GinkgoWriter.Printf("outcome: the control plane refused to start with these gates: %s\n", st.Refused)
		return
	}
	if c.Case.Requires.TestDriver && st.NodeFailed != "" {
		Fail("cell " + c.Cell.Name + ": the kubelet node this case needs failed to start: " + st.NodeFailed)
	}
	if reason := unmet(c, st.Caps); reason != "" {
		if c.Case.Requires.TestDriver && st.NoNode != "" {
			reason += "; " + st.NoNode
		}
		Skip(reason)
	}
	env, err := newEnv(s, c, st, cl, clients)
	if err != nil {
		Fail(err.Error())
	}
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			path, derr := writeDiagnostics(ctx, env, c, s.opts.OutDir)
			if derr != nil {
				GinkgoWriter.Printf("diagnostics incomplete: %v\n", derr)
			}
			if path != "" {
				AddReportEntry("diagnostics", path)
				GinkgoWriter.Printf("diagnostics of %s: %s\n", c.Title(), path)
			}
		}
		if err := env.RunCleanup(ctx); err != nil {
			GinkgoWriter.Printf("cleanup of %s: %v\n", c.ID, err)
		}
	}, NodeTimeout(cleanupBound(c)))
	if err := createNamespace(ctx, env); err != nil {
		Fail(err.Error())
	}
	for i := range c.Case.Given {
		use := &c.Case.Given[i]
		run(ctx, env, &steps.Write{Verb: "create", Spec: &spec.Write{ObjectUse: *use}}, "given", use.Pos)
	}
	for i := range c.Case.Steps {
		sp := &c.Case.Steps[i]
		step, err := steps.Build(sp)
		if err != nil {
			Fail(err.Error())
		}
		run(ctx, env, step, fmt.Sprintf("step %d", i+1), sp.Pos)
	}
	run(ctx, env, steps.CapacityInvariant{}, "invariant", c.Case.Pos)
}

func run(ctx context.Context, env *steps.Env, step steps.Step, what string, pos spec.Pos) {
	By(fmt.Sprintf("%s: %s (%s:%d)", what, step.Describe(), pos.File, pos.Line))
	if err := step.Run(ctx, env); err != nil {
		Fail(fmt.Sprintf("%s at %s:%d, %s:\n%v", what, pos.File, pos.Line, step.Describe(), err))
	}
}

// unmet says why a case cannot be meaningful on this cluster, or "".
func unmet(c plan.Case, caps cluster.Capabilities) string {
	r := c.Case.Requires
	if r.CapacityRequestsField != "" && r.CapacityRequestsField != caps.CapacityRequestsField {
		return fmt.Sprintf("needs an API server where extendedResourceCapacityRequests is %s; here it is %s (%s)", r.CapacityRequestsField, caps.CapacityRequestsField, caps.Describe())
	}
	if r.ConsumableCapacity != "" && r.ConsumableCapacity != caps.ConsumableCapacity {
		return fmt.Sprintf("needs DRAConsumableCapacity fields %s; here they are %s", r.ConsumableCapacity, caps.ConsumableCapacity)
	}
	if r.TestDriver && len(caps.TestDriverNodes) == 0 {
		return "needs nodes with a running kubelet where the draconform test driver (" + cluster.TestDriverName + ") publishes devices, so that pods really start; this cluster has none (the embedded providers add such a node where the machine can run one; elsewhere deploy drivers/deploy/testdriver.yaml, or use --provider kind)"
	}
	if c.Serial && !caps.Restart {
		return "restarts a component, which this provider cannot do"
	}
	return ""
}

func newEnv(s *session, c plan.Case, st *cellState, cl cluster.Cluster, clients *steps.Clients) (*steps.Env, error) {
	prefix := fmt.Sprintf("dc-%s-%s", s.opts.RunID, c.Hash())
	domain := prefix + ".draconform.test"
	base := spec.NewScope(map[string]string{
		"prefix": prefix, "domain": domain, "driver": domain, "namespace": prefix, "run": s.opts.RunID,
	})
	scope, err := base.With(c.Suite.Vars)
	if err == nil {
		scope, err = scope.With(c.Case.Vars)
	}
	if err != nil {
		return nil, fmt.Errorf("variables of %s: %w", c.ID, err)
	}
	return &steps.Env{
		Cluster: cl, Clients: clients, Namespace: prefix, RunID: s.opts.RunID, CaseHash: c.Hash(),
		BaseGates: st.Gates, BaseScope: base, Scope: scope,
		SuiteVars: c.Suite.Vars, CaseVars: c.Case.Vars, Fixtures: s.opts.Bundle.Fixtures,
		Log: GinkgoWriter,
	}, nil
}

// createNamespace gives the case its own namespace and waits for its default
// ServiceAccount, without which the API server refuses pods.
func createNamespace(ctx context.Context, env *steps.Env) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   env.Namespace,
		Labels: map[string]string{steps.RunLabel: env.RunID, steps.CaseLabel: env.CaseHash},
	}}
	core := env.Clients.Kube.CoreV1()
	if _, err := core.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", env.Namespace, err)
	}
	env.Defer("delete namespace "+env.Namespace, func(ctx context.Context) error {
		// The case's pods never run (their nodes have no kubelet to confirm
		// a graceful deletion), so they go at once, and the namespace with them.
		if err := core.Pods(env.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
			return fmt.Errorf("deleting the pods of %s: %w", env.Namespace, err)
		}
		err := core.Namespaces().Delete(ctx, env.Namespace, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
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
