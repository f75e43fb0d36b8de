package k8sbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// DefaultReleaseURL is where Kubernetes publishes its release binaries, each
// beside a .sha256 file: <URL>/<version>/bin/<os>/<arch>/<name>.
const DefaultReleaseURL = "https://dl.k8s.io/release"

// ReleaseURL is where to look for release binaries: $DRACONFORM_RELEASE_URL,
// else DefaultReleaseURL; "off" (or "none") means always build.
func ReleaseURL() string {
	if u := os.Getenv("DRACONFORM_RELEASE_URL"); u != "" {
		if u == "off" || u == "none" {
			return ""
		}
		return strings.TrimRight(u, "/")
	}
	return DefaultReleaseURL
}

// released are the binaries Kubernetes publishes; etcd is not among them.
var released = map[string]bool{"kube-apiserver": true, "kube-scheduler": true, "kube-controller-manager": true, "kubelet": true, "kube-proxy": true, "kubeadm": true, "kubectl": true}

// errUnreachable is a release server that did not answer at all: the
// normal case on a machine without internet, and a quiet fallback.
var errUnreachable = errors.New("release server unreachable")

// Download fetches names of version from base into dir, each checked
// against its published SHA-256. It fetches every file before writing any,
// so a failure leaves dir as it was.
func Download(ctx context.Context, base, version string, names []string, dir string, log *SyncWriter) error {
	client := &http.Client{Timeout: 10 * time.Minute}
	type file struct {
		name string
		data []byte
	}
	var files []file
	for i, name := range names {
		url := fmt.Sprintf("%s/%s/bin/%s/%s/%s", base, version, runtime.GOOS, runtime.GOARCH, name)
		want, err := fetchSum(ctx, url+".sha256", i == 0)
		if err != nil {
			return err
		}
		began := time.Now()
		data, err := fetch(ctx, client, url, 512<<20)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			return fmt.Errorf("%s: SHA-256 %s, but %s.sha256 says %s: refusing it", url, got, url, want)
		}
		log.Printf("local: downloaded %s (%.0f MiB, SHA-256 verified) in %.1fs", url, float64(len(data))/(1<<20), time.Since(began).Seconds())
		files = append(files, file{name, data})
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// fetchSum reads a .sha256 file: the hex digest, optionally followed by a
// file name. The first one probes the server with a short timeout.
func fetchSum(ctx context.Context, url string, probe bool) (string, error) {
	timeout := 30 * time.Second
	if probe {
		timeout = 5 * time.Second
	}
	data, err := fetch(ctx, &http.Client{Timeout: timeout}, url, 1024)
	if err != nil {
		return "", err
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 || len(fields[0]) != 64 {
		return "", fmt.Errorf("%s: not a SHA-256 digest: %q", url, data)
	}
	if _, err := hex.DecodeString(fields[0]); err != nil {
		return "", fmt.Errorf("%s: not a SHA-256 digest: %q", url, data)
	}
	return strings.ToLower(fields[0]), nil
}

func fetch(ctx context.Context, client *http.Client, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", url, limit)
	}
	return data, nil
}
