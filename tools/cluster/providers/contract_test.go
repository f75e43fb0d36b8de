package providers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster"
	"github.com/draconform/draconform/tools/cluster/kind"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/cluster/localcp"
)

// The abilities a cluster may add to the contract, by the names
// contract.go's table gives them.
var abilities = map[string]reflect.Type{
	"RunInspector":     reflect.TypeFor[cluster.RunInspector](),
	"Restarter":        reflect.TypeFor[cluster.Restarter](),
	"Outager":          reflect.TypeFor[cluster.Outager](),
	"BinaryRestarter":  reflect.TypeFor[cluster.BinaryRestarter](),
	"BinaryLister":     reflect.TypeFor[cluster.BinaryLister](),
	"SchedulerLatency": reflect.TypeFor[cluster.SchedulerLatency](),
	"SchedulerMetrics": reflect.TypeFor[cluster.SchedulerMetrics](),
}

// Each provider's cluster type, by the short names the table uses.
var clusterTypes = map[string]reflect.Type{
	"local":      reflect.TypeFor[*localcp.Cluster](),
	"kind":       reflect.TypeFor[*kind.Cluster](),
	"kubeconfig": reflect.TypeFor[*kubeconfig.Adopted](),
}

// A row of the abilities table: "//	Restarter  Cluster (local, kind)  asked by ...".
var abilityRow = regexp.MustCompile(`^//\t(\w+)\s+Cluster \(([a-z, ]+)\)\s`)

// A row of the Info table: "//	AddsNodes  adds a kubelet node ...  AddNode".
var infoRow = regexp.MustCompile(`^//\t([A-Z]\w+)\s{2,}(\S.*\S)\s{2,}([A-Z][\w, ]+)$`)

func contractLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "contract.go"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

// TestContractTableIsTrue holds contract.go's table of a cluster's
// optional abilities to the code: a newcomer reads the contract there, so
// a provider whose cluster gains or loses an ability, or an ability the
// table misses, fails here.
func TestContractTableIsTrue(t *testing.T) {
	listed := map[string]bool{}
	for _, line := range contractLines(t) {
		m := abilityRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, who := m[1], strings.Split(m[2], ", ")
		iface, ok := abilities[name]
		if !ok {
			t.Errorf("contract.go lists %s, which this test does not know: add it to abilities", name)
			continue
		}
		listed[name] = true
		var got []string
		for provider, typ := range clusterTypes {
			if typ.Implements(iface) {
				got = append(got, provider)
			}
		}
		sort.Strings(got)
		sort.Strings(who)
		if !reflect.DeepEqual(got, who) {
			t.Errorf("contract.go says %s is implemented by the cluster of %v; the code: %v", name, who, got)
		}
	}
	for name := range abilities {
		if !listed[name] {
			t.Errorf("contract.go's table does not list %s", name)
		}
	}
}

// TestInfoTableIsTrue holds contract.go's table of what a provider says
// of itself to the code: every row names a field of Info and methods of
// Provider, and every field of Info that governs a method is a row.
func TestInfoTableIsTrue(t *testing.T) {
	info := reflect.TypeFor[cluster.Info]()
	provider := reflect.TypeFor[cluster.Provider]()
	rows := map[string]bool{}
	for _, line := range contractLines(t) {
		m := infoRow.FindStringSubmatch(line)
		if m == nil || m[1] == "Info" {
			continue
		}
		if _, ok := info.FieldByName(m[1]); !ok {
			t.Errorf("contract.go's Info table lists %s, which is no field of Info", m[1])
		}
		rows[m[1]] = true
		for _, method := range strings.Split(m[3], ", ") {
			if _, ok := provider.MethodByName(method); !ok {
				t.Errorf("contract.go's Info table says %s governs %s, which is no method of Provider", m[1], method)
			}
		}
	}
	for _, f := range []string{"MixedCells", "AddsNodes", "ChecksGates", "NodeBuildKey", "SharesFacts", "Visits"} {
		if !rows[f] {
			t.Errorf("contract.go's Info table does not list %s", f)
		}
	}
}

// TestInfoSaysWhatTheMethodsDo: where a provider's Info says it cannot do
// something, the method that does it returns ErrUnsupported, so a caller
// that reads Info first and one that calls and reads the error agree. The
// providers are made as cheaply as they can be (no binaries, no Docker),
// which is when they can do least.
func TestInfoSaysWhatTheMethodsDo(t *testing.T) {
	ctx := context.Background()
	k, err := kind.New(kind.Options{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []cluster.Provider{
		localcp.New(localcp.Options{OutDir: t.TempDir(), Version: "vtest"}),
		k,
		&kubeconfig.Provider{Path: filepath.Join(t.TempDir(), "none")},
	} {
		info := p.Info()
		unsupported := func(what string, err error) {
			if !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("%s: Info says it cannot %s, but it returns %v, not ErrUnsupported", p.Name(), what, err)
			}
		}
		if !info.MixedCells {
			_, err := p.StartMixed(ctx, "skew", nil, []cluster.Component{cluster.Scheduler})
			unsupported("run mixed cells", err)
		}
		if !info.AddsNodes {
			unsupported("add nodes", p.AddNode(ctx, nil))
		}
		if !info.ChecksGates {
			_, err := p.CellUnsupported(ctx, nil, nil)
			unsupported("check a cell's gates", err)
			_, err = p.GatesRefused(ctx, cluster.Scheduler, nil, nil)
			unsupported("check a restart's gates", err)
		}
		if info.NodeBuildKey == "" {
			_, err := p.NodeBinaries(ctx)
			unsupported("build node binaries", err)
			unsupported("adopt node binaries", p.AdoptNodeBinaries(cluster.NodeBinaries{}))
		}
		if !info.SharesFacts {
			unsupported("record its binaries' facts", p.RecordBinaryFacts(ctx))
		}
		if !info.Visits {
			_, err := p.Credentials()
			unsupported("give credentials", err)
		}
	}
}
