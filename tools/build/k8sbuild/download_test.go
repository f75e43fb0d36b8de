package k8sbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// releaseServer serves binaries as dl.k8s.io lays them out; sums overrides
// the published digest of a file.
func releaseServer(t *testing.T, version string, files map[string][]byte, sums map[string]string) *httptest.Server {
	t.Helper()
	prefix := "/" + version + "/bin/" + runtime.GOOS + "/" + runtime.GOARCH + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if bin, ok := strings.CutSuffix(name, ".sha256"); ok {
			data, ok := files[bin]
			if !ok {
				http.NotFound(w, r)
				return
			}
			sum := sha256.Sum256(data)
			digest := hex.EncodeToString(sum[:])
			if s, ok := sums[bin]; ok {
				digest = s
			}
			w.Write([]byte(digest + "  " + bin + "\n"))
			return
		}
		data, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeGo puts a go command on PATH that writes a file per package it is
// asked to build, and records its arguments.
func fakeGo(t *testing.T) (record string) {
	t.Helper()
	bin := t.TempDir()
	record = filepath.Join(bin, "args")
	script := `#!/bin/sh
echo "$*" >> ` + record + `
out=""; prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
for a in "$@"; do
  case "$a" in build|-o|-trimpath|"$out") ;; *) printf 'built %s' "$a" > "$out/$(basename "$a")"; chmod +x "$out/$(basename "$a")";; esac
done
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return record
}

func released4() map[string][]byte {
	return map[string][]byte{
		"kube-apiserver":          []byte("the release kube-apiserver"),
		"kube-scheduler":          []byte("the release kube-scheduler"),
		"kube-controller-manager": []byte("the release kube-controller-manager"),
		"kubelet":                 []byte("the release kubelet"),
	}
}

// pinsOf pins the digests of files as v1.37.2's release binaries.
func pinsOf(files map[string][]byte) map[string]string {
	pins := map[string]string{}
	for name, data := range files {
		sum := sha256.Sum256(data)
		pins[ReleaseKey("v1.37.2", runtime.GOOS, runtime.GOARCH, name)] = hex.EncodeToString(sum[:])
	}
	return pins
}

// ensure builds v1.37.2 with the release binaries from url (a test's plain
// http server) where pins pins them.
func ensure(t *testing.T, url string, pins map[string]string) (string, string) {
	t.Helper()
	var log bytes.Buffer
	dir, err := EnsureBinaries(context.Background(), BuildOptions{Version: "v1.37.2", ModuleDir: t.TempDir(), CacheDir: t.TempDir(),
		ReleaseURL: url, PlainReleaseURL: true, ReleaseDigests: pins, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return dir, log.String()
}

func TestReleaseBinariesAreDownloadedAndOnlyEtcdBuilt(t *testing.T) {
	record := fakeGo(t)
	files := released4()
	srv := releaseServer(t, "v1.37.2", files, nil)
	dir, log := ensure(t, srv.URL, pinsOf(files))
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: got %q (%v), want the release file", name, got, err)
		}
	}
	args, _ := os.ReadFile(record)
	if strings.Count(string(args), "\n") != 1 || !strings.Contains(string(args), "./etcd") || strings.Contains(string(args), "k8s.io/kubernetes") {
		t.Errorf("want one go build, of etcd alone; go was called with:\n%s", args)
	}
	if !strings.Contains(log, "SHA-256 verified") {
		t.Errorf("the log does not say the download was verified:\n%s", log)
	}
}

func TestReleaseBinaryWithAWrongSumIsRefusedAndBuilt(t *testing.T) {
	record := fakeGo(t)
	srv := releaseServer(t, "v1.37.2", released4(), map[string]string{"kube-scheduler": strings.Repeat("ab", 32)})
	dir, log := ensure(t, srv.URL, pinsOf(released4()))
	got, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver"))
	if string(got) != "built k8s.io/kubernetes/cmd/kube-apiserver" {
		t.Errorf("kube-apiserver: got %q, want the one built from source: no downloaded file may be kept when one is refused", got)
	}
	if !strings.Contains(log, "refusing it") {
		t.Errorf("the log does not say why the download was refused:\n%s", log)
	}
	if args, _ := os.ReadFile(record); !strings.Contains(string(args), "k8s.io/kubernetes/cmd/kube-scheduler") {
		t.Errorf("kube-scheduler was not built; go was called with:\n%s", args)
	}
}

func TestUnreachableReleaseServerMeansBuilding(t *testing.T) {
	fakeGo(t)
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	dir, log := ensure(t, url, pinsOf(released4()))
	got, _ := os.ReadFile(filepath.Join(dir, "kubelet"))
	if string(got) != "built k8s.io/kubernetes/cmd/kubelet" {
		t.Errorf("kubelet: got %q, want the one built from source", got)
	}
	if !strings.Contains(log, "no release binaries of v1.37.2") {
		t.Errorf("the log does not say the server was unreachable:\n%s", log)
	}
}

func TestMissingReleaseMeansBuilding(t *testing.T) {
	fakeGo(t)
	srv := releaseServer(t, "v1.37.2", map[string][]byte{}, nil)
	dir, log := ensure(t, srv.URL, pinsOf(released4()))
	if got, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver")); !bytes.HasPrefix(got, []byte("built ")) {
		t.Errorf("kube-apiserver: got %q, want the one built from source", got)
	}
	if !strings.Contains(log, "404") {
		t.Errorf("the log does not say what the server answered:\n%s", log)
	}
}

func TestReleaseURLFromTheEnvironment(t *testing.T) {
	for env, want := range map[string]string{"": DefaultReleaseURL, "off": "", "https://mirror.example/release/": "https://mirror.example/release"} {
		t.Setenv("DRACONFORM_RELEASE_URL", env)
		if got, err := ReleaseURL(); got != want || err != nil {
			t.Errorf("DRACONFORM_RELEASE_URL=%q: ReleaseURL() = %q, %v; want %q", env, got, err, want)
		}
	}
}

// What draconform downloads it runs, as root on a node: over plain http
// anyone on the way could swap a binary and the digest beside it.
func TestPlainReleaseURLIsRefused(t *testing.T) {
	for _, env := range []string{"http://mirror.example/release", "file:///srv/release", "mirror.example/release"} {
		t.Setenv("DRACONFORM_RELEASE_URL", env)
		if got, err := ReleaseURL(); err == nil || !strings.Contains(err.Error(), "https") {
			t.Errorf("DRACONFORM_RELEASE_URL=%q: ReleaseURL() = %q, %v; want a refusal that asks for https", env, got, err)
		}
	}
	fakeGo(t)
	asked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked++; http.NotFound(w, r) }))
	defer srv.Close()
	_, err := EnsureBinaries(context.Background(), BuildOptions{Version: "v1.37.2", ModuleDir: t.TempDir(), CacheDir: t.TempDir(),
		ReleaseURL: srv.URL, ReleaseDigests: pinsOf(released4()), Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "https") || asked > 0 {
		t.Errorf("EnsureBinaries from %s: %v, %d requests; want a refusal that asks for https, before any request", srv.URL, err, asked)
	}
}

// A download is trusted by its pin, not by the .sha256 its own server
// publishes beside it: a server that serves another kube-scheduler, with
// the digest of that one, is refused, and so is one whose .sha256 says
// the pin but whose file is another.
func TestDownloadDifferingFromItsPinIsRefusedAndBuilt(t *testing.T) {
	record := fakeGo(t)
	pins := pinsOf(released4())
	swapped := released4()
	swapped["kube-scheduler"] = []byte("not the release kube-scheduler")
	for name, sums := range map[string]map[string]string{
		"its own digest beside it": nil,
		"the pin beside it":        {"kube-scheduler": pins[ReleaseKey("v1.37.2", runtime.GOOS, runtime.GOARCH, "kube-scheduler")]},
	} {
		srv := releaseServer(t, "v1.37.2", swapped, sums)
		dir, log := ensure(t, srv.URL, pins)
		if got, _ := os.ReadFile(filepath.Join(dir, "kube-scheduler")); string(got) != "built k8s.io/kubernetes/cmd/kube-scheduler" {
			t.Errorf("%s: kube-scheduler is %q; want the one built from source", name, got)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver")); !bytes.HasPrefix(got, []byte("built ")) {
			t.Errorf("%s: kube-apiserver is %q; no downloaded file may be kept when one is refused", name, got)
		}
		if !strings.Contains(log, "draconform pins") || !strings.Contains(log, "refusing it") {
			t.Errorf("%s: the log does not say the download differs from its pin:\n%s", name, log)
		}
	}
	if args, _ := os.ReadFile(record); !strings.Contains(string(args), "k8s.io/kubernetes/cmd/kube-scheduler") {
		t.Errorf("kube-scheduler was not built; go was called with:\n%s", args)
	}
}

// A release draconform pins no digest of is built, not downloaded: its
// server alone would vouch for it.
func TestUnpinnedReleaseIsBuiltNotDownloaded(t *testing.T) {
	fakeGo(t)
	asked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked++; http.NotFound(w, r) }))
	defer srv.Close()
	dir, log := ensure(t, srv.URL, map[string]string{})
	if got, _ := os.ReadFile(filepath.Join(dir, "kubelet")); string(got) != "built k8s.io/kubernetes/cmd/kubelet" || asked > 0 {
		t.Errorf("kubelet is %q after %d requests to the server; want the one built from source, and no request", got, asked)
	}
	if !strings.Contains(log, "pins no digest") {
		t.Errorf("the log does not say why nothing was downloaded:\n%s", log)
	}
}
