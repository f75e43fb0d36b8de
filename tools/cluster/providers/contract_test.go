package providers

import (
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

// The abilities a provider or its clusters may add to the contract, by the
// names contract.go's table gives them.
var abilities = map[string]reflect.Type{
	"RunInspector":     reflect.TypeFor[cluster.RunInspector](),
	"Restarter":        reflect.TypeFor[cluster.Restarter](),
	"Outager":          reflect.TypeFor[cluster.Outager](),
	"BinaryRestarter":  reflect.TypeFor[cluster.BinaryRestarter](),
	"BinaryLister":     reflect.TypeFor[cluster.BinaryLister](),
	"SchedulerLatency": reflect.TypeFor[cluster.SchedulerLatency](),
	"SchedulerMetrics": reflect.TypeFor[cluster.SchedulerMetrics](),
	"MixedStarter":     reflect.TypeFor[cluster.MixedStarter](),
	"NodeAdder":        reflect.TypeFor[cluster.NodeAdder](),
	"GateChecker":      reflect.TypeFor[cluster.GateChecker](),
}

// Each provider's types, by the short names the table uses.
var implementations = map[string]map[string]reflect.Type{
	"local": {
		"Provider": reflect.TypeFor[*localcp.Provider](),
		"Cluster":  reflect.TypeFor[*localcp.Cluster](),
	},
	"kind": {
		"Provider": reflect.TypeFor[*kind.Provider](),
		"Cluster":  reflect.TypeFor[*kind.Cluster](),
	},
	"kubeconfig": {
		"Provider": reflect.TypeFor[*kubeconfig.Provider](),
		"Cluster":  reflect.TypeFor[*kubeconfig.Adopted](),
	},
}

// A row of the table: "//	Restarter  Cluster (local, kind)  asked by ...".
var tableRow = regexp.MustCompile(`^//\t(\w+)\s+(Provider|Cluster) \(([a-z, ]+)\)\s`)

// TestContractTableIsTrue holds contract.go's table of optional abilities
// to the code: a newcomer reads the contract there, so a provider that
// gains or loses an ability, or an ability the table misses, fails here.
func TestContractTableIsTrue(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "contract.go"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		m := tableRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, side, who := m[1], m[2], strings.Split(m[3], ", ")
		iface, ok := abilities[name]
		if !ok {
			t.Errorf("contract.go lists %s, which this test does not know: add it to abilities", name)
			continue
		}
		listed[name] = true
		var got []string
		for provider, types := range implementations {
			if types[side].Implements(iface) {
				got = append(got, provider)
			}
		}
		sort.Strings(got)
		sort.Strings(who)
		if !reflect.DeepEqual(got, who) {
			t.Errorf("contract.go says %s is implemented by the %s of %v; the code: %v", name, side, who, got)
		}
	}
	for name := range abilities {
		if !listed[name] {
			t.Errorf("contract.go's table does not list %s", name)
		}
	}
}
