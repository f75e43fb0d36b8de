package k8sbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
// else DefaultReleaseURL; "off" (or "none") means always build. Only an
// https URL is taken: what is downloaded runs, as root on a node, and over
// plain http anyone on the way could swap it (and the digest beside it).
// Tests serve plain http through BuildOptions.PlainReleaseURL instead.
func ReleaseURL() (string, error) {
	u := os.Getenv("DRACONFORM_RELEASE_URL")
	switch u {
	case "":
		return DefaultReleaseURL, nil
	case "off", "none":
		return "", nil
	}
	if err := httpsURL(u); err != nil {
		return "", fmt.Errorf("DRACONFORM_RELEASE_URL=%s: %w; set an https mirror, or off to build the binaries", u, err)
	}
	return strings.TrimRight(u, "/"), nil
}

// httpsURL says why u is no https URL of a server.
func httpsURL(u string) error {
	parsed, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if parsed.Scheme != "https" || parsed.Host == "" {
		return errors.New("draconform downloads the binaries it runs only over https")
	}
	return nil
}

// released are the binaries Kubernetes publishes; etcd is not among them.
var released = map[string]bool{"kube-apiserver": true, "kube-scheduler": true, "kube-controller-manager": true, "kubelet": true, "kube-proxy": true, "kubeadm": true, "kubectl": true}

// errUnreachable is a release server that did not answer at all: the
// normal case on a machine without internet, and a quiet fallback.
var errUnreachable = errors.New("release server unreachable")

// Download fetches names of version from base into dir, each checked
// against its digest in pins (by name): the .sha256 the server publishes
// beside a file must say the same, but alone it vouches for nothing the
// server did not already say. It fetches every file before writing any,
// so a failure leaves dir as it was.
func Download(ctx context.Context, base, version string, names []string, pins map[string]string, dir string, log *SyncWriter) error {
	client := &http.Client{Timeout: 10 * time.Minute}
	type file struct {
		name string
		data []byte
	}
	var files []file
	for i, name := range names {
		addr := fmt.Sprintf("%s/%s/bin/%s/%s/%s", base, version, runtime.GOOS, runtime.GOARCH, name)
		pin := pins[name]
		if pin == "" {
			return fmt.Errorf("%s: no digest of it pinned: refusing it", addr)
		}
		published, err := fetchSum(ctx, addr+".sha256", i == 0)
		if err != nil {
			return err
		}
		if published != pin {
			return fmt.Errorf("%s.sha256 says %s, but draconform pins %s for it: refusing it", addr, published, pin)
		}
		began := time.Now()
		data, err := fetch(ctx, client, addr, 512<<20)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != pin {
			return fmt.Errorf("%s: SHA-256 %s, but draconform pins %s for it: refusing it", addr, got, pin)
		}
		log.Printf("local: downloaded %s (%.0f MiB, SHA-256 verified against its pin) in %.1fs", addr, float64(len(data))/(1<<20), time.Since(began).Seconds())
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
