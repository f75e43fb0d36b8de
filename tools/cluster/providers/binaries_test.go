package providers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/cluster"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestChooseBinaries(t *testing.T) {
	dir := t.TempDir()
	touch(t, filepath.Join(dir, "kube-apiserver"))
	touch(t, filepath.Join(dir, "kube-scheduler"))
	touch(t, filepath.Join(dir, "unrelated"))
	own := filepath.Join(t.TempDir(), "my-scheduler")
	touch(t, own)

	got, err := chooseBinaries(dir, map[string]string{"kube-scheduler": own})
	if err != nil {
		t.Fatal(err)
	}
	want := map[cluster.Component]string{
		cluster.APIServer: filepath.Join(dir, "kube-apiserver"),
		cluster.Scheduler: own, // --bin wins over the directory
	}
	if len(got) != len(want) {
		t.Errorf("chose %v, want %v (what the directory lacks runs draconform's build)", got, want)
	}
	for c, p := range want {
		if got[c] != p {
			t.Errorf("%s: chose %s, want %s", c, got[c], p)
		}
	}

	for _, tc := range []struct {
		name  string
		dir   string
		named map[string]string
		want  string
	}{
		{"unknown component", "", map[string]string{"kubelet": own}, `"kubelet" is not a control-plane component`},
		{"not a directory", own, nil, "is not a directory"},
		{"empty directory", t.TempDir(), nil, "holds none of etcd, kube-apiserver"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := chooseBinaries(tc.dir, tc.named); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
