package localproc

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/internal/bintrust"
)

// cachedKubelet is a kubelet in a build cache folder, digests recorded,
// that leaves a mark when it runs.
func cachedKubelet(t *testing.T) (kubelet, mark string) {
	t.Helper()
	key := filepath.Join(t.TempDir(), "v1.37.2")
	bin := filepath.Join(key, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(key, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mark = filepath.Join(t.TempDir(), "ran")
	kubelet = filepath.Join(bin, "kubelet")
	if err := os.WriteFile(kubelet, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := bintrust.Record(bin, []string{"kubelet"}); err != nil {
		t.Fatal(err)
	}
	return kubelet, mark
}

// start starts kubelet with trust, and says whether it ran.
func start(t *testing.T, trust *bintrust.Checker, kubelet, mark string) (bool, error) {
	t.Helper()
	p, err := Start(trust, "kubelet", kubelet, nil, filepath.Join(t.TempDir(), "kubelet.log"), "")
	if err == nil {
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			p.Kill()
		}
	}
	_, ran := os.Stat(mark)
	return ran == nil, err
}

func TestTamperedCachedBinaryIsRefusedBeforeItStarts(t *testing.T) {
	kubelet, mark := cachedKubelet(t)
	notRoot := &bintrust.Checker{EUID: func() int { return 1000 }}
	if ran, err := start(t, notRoot, kubelet, mark); err != nil || !ran {
		t.Fatalf("the kubelet as built: ran %v, %v", ran, err)
	}
	os.Remove(mark)
	f, err := os.OpenFile(kubelet, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("echo tampered\n")
	f.Close()
	ran, err := start(t, notRoot, kubelet, mark)
	if err == nil || !strings.Contains(err.Error(), kubelet) || !strings.Contains(err.Error(), "SHA-256") || ran {
		t.Errorf("start of a kubelet changed since its build: ran %v, %v; want a refusal naming %s before it runs", ran, err, kubelet)
	}
}

func TestBinaryNotOwnedByRootIsRefusedBeforeRootStartsIt(t *testing.T) {
	kubelet, mark := cachedKubelet(t)
	asRoot := &bintrust.Checker{EUID: func() int { return 0 }, Owner: func(path string, _ fs.FileInfo) int {
		if path == kubelet {
			return 1000
		}
		return 0
	}}
	ran, err := start(t, asRoot, kubelet, mark)
	if err == nil || !strings.Contains(err.Error(), kubelet) || !strings.Contains(err.Error(), "uid 1000") || ran {
		t.Errorf("start as root of a kubelet owned by uid 1000: ran %v, %v; want a refusal naming %s before it runs", ran, err, kubelet)
	}
}
