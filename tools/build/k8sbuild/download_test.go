package k8sbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

func ensure(t *testing.T, url string) (string, string) {
	t.Helper()
	var log bytes.Buffer
	dir, err := EnsureBinaries(context.Background(), BuildOptions{Version: "v1.37.2", ModuleDir: t.TempDir(), CacheDir: t.TempDir(), ReleaseURL: url, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return dir, log.String()
}

func TestReleaseBinariesAreDownloadedAndOnlyEtcdBuilt(t *testing.T) {
	record := fakeGo(t)
	files := released4()
	srv := releaseServer(t, "v1.37.2", files, nil)
	dir, log := ensure(t, srv.URL)
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
	dir, log := ensure(t, srv.URL)
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
	dir, log := ensure(t, url)
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
	dir, log := ensure(t, srv.URL)
	if got, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver")); !bytes.HasPrefix(got, []byte("built ")) {
		t.Errorf("kube-apiserver: got %q, want the one built from source", got)
	}
	if !strings.Contains(log, "404") {
		t.Errorf("the log does not say what the server answered:\n%s", log)
	}
}

func TestReleaseURLFromTheEnvironment(t *testing.T) {
	for env, want := range map[string]string{"": DefaultReleaseURL, "off": "", "http://mirror.example/release/": "http://mirror.example/release"} {
		t.Setenv("DRACONFORM_RELEASE_URL", env)
		if got := ReleaseURL(); got != want {
			t.Errorf("DRACONFORM_RELEASE_URL=%q: ReleaseURL() = %q, want %q", env, got, want)
		}
	}
}
