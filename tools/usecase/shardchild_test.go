package usecase

import (
	"reflect"
	"testing"

	"github.com/draconform/draconform/tools/runner/shards"
)

func TestShardChildKeepsTheRunsSpecsSuitesAndBinaries(t *testing.T) {
	r := RunRequest{Profile: "p.yaml", Verbose: true}
	r.Specs.Suites, r.Specs.Fixtures = "my-suites", "my-fixtures"
	r.Filter.Suites = "kep6406-api, kep6406-skew"
	r.Providers.Local.Version = "v1.37.2"
	r.Providers.Local.BinDir = "/bins"
	r.Providers.Local.BinEncoding = "json"
	r.Providers.Bins = "kube-scheduler=/s"
	got, err := r.child()
	if err != nil {
		t.Fatal(err)
	}
	want := shards.Common{SuitesDir: "my-suites", FixturesDir: "my-fixtures", Suites: []string{"kep6406-api", "kep6406-skew"}, Profile: "p.yaml", Verbose: true}
	want.Local = r.Providers.Local
	want.Local.Bins = map[string]string{"kube-scheduler": "/s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("child:\n got %+v\nwant %+v", got, want)
	}
	r.Providers.Bins = "kube-scheduler"
	if _, err := r.child(); err == nil {
		t.Error("a --bin without a path was not refused")
	}
}
