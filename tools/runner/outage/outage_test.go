package outage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/draconform/draconform/fixtures"
	"github.com/draconform/draconform/steps"
	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/providers"
	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/plan"
	"github.com/draconform/draconform/tools/report"
	"github.com/draconform/draconform/tools/runner"
)

// downFor is how long kube-apiserver stays dead: long enough that the step
// after the case's sleep meets the outage, and that clean-up, which starts
// right after, must retry.
const downFor = 12 * time.Second

// The API server of the defaults cell is killed (SIGKILL) while its one
// case sleeps, and started again 12 s later. The case must fail saying the
// API server was down, its clean-up must wait for it and still remove
// everything the case made, and the same case must pass in the next cell.
func TestAPIServerKilledMidCase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes and kills one")
	}
	b, err := loader.Load(os.DirFS("testdata"), fixtures.FS, steps.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := providers.New(ctx, providers.Config{Name: "local", OutDir: filepath.Join(out, "local"), Log: os.Stdout, Local: providers.LocalOptions{Version: "v1.37.2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer providers.Closer(p, os.Stdout)()
	rec := &recording{Provider: p, t: t, ctx: ctx, left: map[string][]string{}, killed: make(chan string, 1)}
	if err := runner.Register(runner.Options{Bundle: b, Plan: plan.Expand(b, plan.Filter{}), Targets: []runner.Target{{Name: "local", Provider: rec}},
		OutDir: out, RunID: runner.NewRunID(), Log: os.Stdout}); err != nil {
		t.Fatal(err)
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteCfg, reporterCfg := ginkgo.GinkgoConfiguration()
	reporterCfg.Succinct = true
	// The run must fail (one case met the outage), which RunSpecs would
	// report as this test's failure: it reports to suite instead.
	suite := &suiteT{}
	if ginkgo.RunSpecs(suite, "outage", suiteCfg, reporterCfg) || !suite.failed {
		t.Error("the run passed, though a case met an outage")
	}
	select {
	case what := <-rec.killed:
		t.Log(what)
	default:
		t.Fatal("kube-apiserver was never killed: the test proved nothing")
	}

	outcomes := map[string]report.Outcome{}
	data, err := os.ReadFile(filepath.Join(out, report.OutcomesFile))
	if err != nil {
		t.Fatal(err)
	}
	var list []report.Outcome
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	for _, o := range list {
		outcomes[o.Cell] = o
	}
	hit := outcomes["defaults"]
	if hit.State != report.Failed || !strings.Contains(hit.Message, "failed during an API server outage") || !strings.Contains(hit.Message, "kube-apiserver is not running") {
		t.Errorf("the case that met the outage: %s, %q; want failed, naming the outage", hit.State, hit.Message)
	}
	if next := outcomes["again"]; next.State != report.Passed {
		t.Errorf("the case in the next cell: %s %q; want passed", next.State, next.Message)
	}
	for cell, left := range rec.left {
		for _, l := range left {
			t.Errorf("cell %s: left behind: %s", cell, l)
		}
	}
	if _, ok := rec.left["defaults"]; !ok {
		t.Error("the defaults cell's cluster was never checked for leftovers")
	}
}

// suiteT receives the suite's verdict in place of the test's.
type suiteT struct{ failed bool }

func (s *suiteT) Fail() { s.failed = true }

// recording starts clusters through the real provider and, for the
// defaults cell, kills its kube-apiserver once a case's namespace exists;
// before stopping each cluster it looks for anything the run left.
type recording struct {
	cluster.Provider
	t      *testing.T
	ctx    context.Context
	mu     sync.Mutex
	left   map[string][]string
	killed chan string
	cells  sync.Map // cluster → cell
}

func (r *recording) Start(ctx context.Context, cell string, gates cluster.GateState) (cluster.Cluster, error) {
	c, err := r.Provider.Start(ctx, cell, gates)
	if err != nil {
		return nil, err
	}
	r.cells.Store(c, cell)
	if cell == "defaults" {
		go r.outage(c, gates)
	}
	return c, nil
}

// outage waits for the case's namespace, kills kube-apiserver a second
// later, and starts it again downFor after that.
func (r *recording) outage(c cluster.Cluster, gates cluster.GateState) {
	dyn := dynamic.NewForConfigOrDie(c.RESTConfig())
	namespaces := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	err := wait.PollUntilContextTimeout(r.ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := namespaces.List(ctx, metav1.ListOptions{LabelSelector: steps.RunLabel})
		return err == nil && len(list.Items) > 0, nil
	})
	if err != nil {
		return
	}
	time.Sleep(time.Second)
	ri, _ := cluster.RunInspectorOf(c)
	run, err := ri.CurrentRun(r.ctx, cluster.APIServer)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(run.ID)
	if err != nil || syscall.Kill(pid, syscall.SIGKILL) != nil {
		return
	}
	began := time.Now()
	time.Sleep(downFor)
	rs, _ := cluster.RestarterOf(c)
	err = rs.Restart(r.ctx, cluster.APIServer, gates[cluster.APIServer])
	r.killed <- fmt.Sprintf("kube-apiserver (pid %d) killed mid-case, started again after %.0f s (err %v)", pid, time.Since(began).Seconds(), err)
}

// Stop looks for every object carrying the run label (namespaces are given
// a minute to finish terminating), then stops the cluster. On a cluster the
// run discards, a case leaves its emptied namespace to go with it: there
// the case's pods must be gone instead.
func (r *recording) Stop(ctx context.Context, c cluster.Cluster) error {
	cell, _ := r.cells.Load(c)
	dyn := dynamic.NewForConfigOrDie(c.RESTConfig())
	sel := metav1.ListOptions{LabelSelector: steps.RunLabel}
	kinds := []schema.GroupVersionResource{
		{Version: "v1", Resource: "namespaces"}, {Version: "v1", Resource: "nodes"},
		{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"}, {Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	}
	if r.Info().Discards {
		kinds[0] = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	}
	var left []string
	_ = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		left = nil
		for _, gvr := range kinds {
			list, err := dyn.Resource(gvr).List(ctx, sel)
			if err != nil {
				left = append(left, fmt.Sprintf("%s: cannot list: %v", gvr.Resource, err))
				continue
			}
			for _, u := range list.Items {
				left = append(left, gvr.Resource+" "+u.GetName())
			}
		}
		return len(left) == 0, nil
	})
	r.mu.Lock()
	r.left[fmt.Sprint(cell)] = left
	r.mu.Unlock()
	return r.Provider.Stop(ctx, c)
}
