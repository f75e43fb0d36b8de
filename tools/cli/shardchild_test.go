package cli

import (
	"reflect"
	"testing"

	"github.com/draconform/draconform/tools/runner/shards"
)

func TestShardChildKeepsTheRunsSpecsSuitesAndBinaries(t *testing.T) {
	r := runRequest{profile: "p.yaml", verbose: true}
	r.specs.suites, r.specs.fixtures = "my-suites", "my-fixtures"
	r.filter.suites = "kep6406-api, kep6406-skew"
	r.prov.local.Version = "v1.37.2"
	r.prov.local.BinDir = "/bins"
	r.prov.local.BinEncoding = "json"
	r.prov.bins = "kube-scheduler=/s"
	got, err := r.child()
	if err != nil {
		t.Fatal(err)
	}
	want := shards.Common{SuitesDir: "my-suites", FixturesDir: "my-fixtures", Suites: []string{"kep6406-api", "kep6406-skew"}, Profile: "p.yaml", Verbose: true}
	want.Local = r.prov.local
	want.Local.Bins = map[string]string{"kube-scheduler": "/s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("child:\n got %+v\nwant %+v", got, want)
	}
	r.prov.bins = "kube-scheduler"
	if _, err := r.child(); err == nil {
		t.Error("a --bin without a path was not refused")
	}
}
