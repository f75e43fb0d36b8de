package localproc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Probe is one HTTP health endpoint of a component.
type Probe struct {
	URL    string
	client *http.Client
	token  string // bearer token, when the endpoint needs one
	// wantBody lists text a 200 answer must also hold; a component can answer
	// 200 before the part that matters is up.
	WantBody []string
}

// InsecureProbe is for the scheduler and controller manager, which serve
// with in-memory self-signed certs; the probe only ever dials loopback.
func InsecureProbe(url string) Probe {
	return Probe{URL: url, client: &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}}
}

// CAProbe asks url with a bearer token, trusting the CA of caPEM.
func CAProbe(url string, caPEM []byte, token string) (Probe, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return Probe{}, fmt.Errorf("no certificate in CA PEM")
	}
	return Probe{URL: url, token: token, client: &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}}, nil
}

// PlainProbe asks url over plain HTTP.
func PlainProbe(url string) Probe {
	return Probe{URL: url, client: &http.Client{Timeout: 2 * time.Second}}
}

// ClientProbe asks url with client, for an endpoint that needs client
// certificates of its own (etcd's).
func ClientProbe(url string, client *http.Client) Probe {
	return Probe{URL: url, client: client}
}

// Do asks the endpoint once and returns its answer, whose body the caller
// closes.
func (pr Probe) Do(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pr.URL, nil)
	if err != nil {
		return nil, err
	}
	if pr.token != "" {
		req.Header.Set("Authorization", "Bearer "+pr.token)
	}
	return pr.client.Do(req)
}

// Check returns nil on HTTP 200, else what the endpoint said.
func (pr Probe) Check(ctx context.Context) error {
	resp, err := pr.Do(ctx)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// A scheduler's /metrics runs to some hundred KiB, and the line a
	// probe wants is anywhere in it.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	for _, want := range pr.WantBody {
		if !strings.Contains(string(body), want) {
			return fmt.Errorf("answer lacks %q", want)
		}
	}
	return nil
}

// WaitHealthy polls pr until it answers 200, the process exits, or timeout
// passes. An exit is reported with the log tail, since that is where the
// reason is.
func WaitHealthy(ctx context.Context, p *Process, pr Probe, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if p.Exited() {
			return false, p.DiedError()
		}
		last = pr.Check(ctx)
		return last == nil, nil
	})
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("%s not healthy at %s after %s (last: %v); log %s, last lines:\n%s",
			p.Name, pr.URL, timeout, last, p.LogPath, LogTail(p.LogPath, 30))
	}
	return err
}
