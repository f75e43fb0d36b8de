package localcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// probe is one HTTP health endpoint of a component.
type probe struct {
	url    string
	client *http.Client
	token  string // bearer token, when the endpoint needs one
	// wantBody lists text a 200 answer must also hold; a component can answer
	// 200 before the part that matters is up.
	wantBody []string
}

// insecureProbe is for the scheduler and controller manager, which serve
// with in-memory self-signed certs; the probe only ever dials loopback.
func insecureProbe(url string) probe {
	return probe{url: url, client: &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}}
}

func caProbe(url string, caPEM []byte, token string) (probe, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return probe{}, fmt.Errorf("no certificate in CA PEM")
	}
	return probe{url: url, token: token, client: &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}}, nil
}

func plainProbe(url string) probe {
	return probe{url: url, client: &http.Client{Timeout: 2 * time.Second}}
}

// etcdProbe asks etcd as the API server does: with the client certificate
// etcd's CA signed, checking etcd's own against that CA.
func etcdProbe(url string, p *pki) (probe, error) {
	caPEM, err := os.ReadFile(p.EtcdCACert)
	if err != nil {
		return probe{}, fmt.Errorf("reading etcd's CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return probe{}, fmt.Errorf("no certificate in %s", p.EtcdCACert)
	}
	cert, err := tls.LoadX509KeyPair(p.EtcdClientCert, p.EtcdClientKey)
	if err != nil {
		return probe{}, fmt.Errorf("loading etcd's client certificate: %w", err)
	}
	return probe{url: url, client: &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}}, nil
}

// check returns nil on HTTP 200, else what the endpoint said.
func (pr probe) check(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pr.url, nil)
	if err != nil {
		return err
	}
	if pr.token != "" {
		req.Header.Set("Authorization", "Bearer "+pr.token)
	}
	resp, err := pr.client.Do(req)
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
	for _, want := range pr.wantBody {
		if !strings.Contains(string(body), want) {
			return fmt.Errorf("answer lacks %q", want)
		}
	}
	return nil
}

// waitHealthy polls pr until it answers 200, the process exits, or timeout
// passes. An exit is reported with the log tail, since that is where the
// reason is.
func waitHealthy(ctx context.Context, p *process, pr probe, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if p.exited() {
			return false, p.diedError()
		}
		last = pr.check(ctx)
		return last == nil, nil
	})
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("%s not healthy at %s after %s (last: %v); log %s, last lines:\n%s",
			p.name, pr.url, timeout, last, p.logPath, logTail(p.logPath, 30))
	}
	return err
}
