package usecase

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/draconform/draconform/tools/certify/bundle"
	"github.com/draconform/draconform/tools/cluster/kubeconfig"
	"github.com/draconform/draconform/tools/runner"
)

// fakeAPIServer answers what the preflight asks: every permission held,
// and the dry-run namespace it makes admitted (refusal "") or refused with
// that message, as an admission policy refuses it.
func fakeAPIServer(t *testing.T, refusal string) (kubeconfigPath string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
		case strings.HasSuffix(r.URL.Path, "/selfsubjectreviews"):
			fmt.Fprint(w, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","status":{"userInfo":{"username":"system:serviceaccount:ci:runner"}}}`)
		case strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews"):
			fmt.Fprint(w, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":true}}`)
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces":
			if r.URL.Query().Get("dryRun") != "All" {
				t.Errorf("the preflight created a namespace for real: %s", r.URL)
			}
			if refusal == "" {
				w.WriteHeader(http.StatusCreated)
				fmt.Fprint(w, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"draconform-preflight-x"}}`)
				return
			}
			w.WriteHeader(http.StatusForbidden)
			msg, _ := json.Marshal(refusal)
			fmt.Fprintf(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":%s}`, msg)
		case r.Method == http.MethodGet:
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"List","items":[]}`)
		default:
			t.Errorf("the preflight wrote: %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + srv.URL + "\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	refusedByCurrent = `namespaces "draconform-preflight-x" is forbidden: ValidatingAdmissionPolicy 'draconform-runner' with binding 'draconform-runner' denied request: draconform writes only objects it created: they carry the label draconform.dev/run, or live in a namespace that does (draconform policy version 3)`
	// The ownership-only policy's message (66cc199), which carried no version.
	refusedByOlder = `namespaces "draconform-preflight-x" is forbidden: ValidatingAdmissionPolicy 'draconform-runner' with binding 'draconform-runner' denied request: draconform writes only objects it created: they carry the label draconform.dev/run, or live in a namespace that does`
	refusedByOther = `namespaces "draconform-preflight-x" is forbidden: ValidatingAdmissionPolicy 'platform-guard' with binding 'platform-guard' denied request: no`
)

// A run writes to a cluster it did not start only where draconform's
// current policy confines its writes, or where --allow-unconfined says to
// write anyway; the run's folder records which.
func TestUnconfinedClustersAreRefusedUnlessAllowed(t *testing.T) {
	for _, tt := range []struct {
		name     string
		refusal  string
		allow    bool
		code     int
		says     string
		recorded bundle.Access
	}{
		{"confined", refusedByCurrent, false, 0, "writes are confined to draconform's own objects by its admission policy",
			bundle.Access{Cluster: bundle.ClusterVisited, Confined: "yes"}},
		{"not confined", "", false, 2, "nothing refused a dry-run namespace that is not draconform's", bundle.Access{}},
		{"not confined, allowed", "", true, 0, "--allow-unconfined: the run writes anyway",
			bundle.Access{Cluster: bundle.ClusterVisited, Confined: "no", Unconfined: true}},
		{"an older policy", refusedByOlder, false, 2, "confined by an older policy of draconform's: apply `draconform rbac` again", bundle.Access{}},
		{"an older policy, allowed", refusedByOlder, true, 0, "confined by an older policy of draconform's: apply `draconform rbac` again",
			bundle.Access{Cluster: bundle.ClusterVisited, Confined: "older", Unconfined: true}},
		{"another's policy", refusedByOther, false, 2, "not by draconform's admission policy", bundle.Access{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kc := fakeAPIServer(t, tt.refusal)
			var stdout strings.Builder
			err := Preflight(context.Background(), PreflightRequest{Kubeconfig: KubeconfigOptions{Path: kc}, AllowUnconfined: tt.allow}, &stdout)
			code, stderr := ExitCode(err)
			if code != tt.code || !strings.Contains(stdout.String()+stderr, tt.says) {
				t.Errorf("preflight: exit %d (want %d), want it to say %q:\n%s%s", code, tt.code, tt.says, stdout.String(), stderr)
			}
			if tt.code == 2 {
				for _, way := range []string{"draconform rbac --subject", "--allow-unconfined", "refusing to write to"} {
					if !strings.Contains(stderr, way) {
						t.Errorf("the refusal does not say %q:\n%s", way, stderr)
					}
				}
				// A run stops there too, before any case.
				out := t.TempDir()
				var stdout, stderr strings.Builder
				r := RunRequest{Providers: Providers{Provider: "kubeconfig", Kubeconfig: KubeconfigOptions{Path: kc}}, Out: out, Filter: Filter{Suites: "kep6406-api"}}
				_, err := Run(context.Background(), r, Streams{Out: &stdout, Err: &stderr})
				if code, _ := ExitCode(err); code != 2 || !strings.Contains(stderr.String(), "writes are not confined: refusing to write") || strings.Contains(stdout.String(), "Ran ") {
					t.Errorf("run: exit %d, want 2 and the refusal:\n%s%s", code, stdout.String(), stderr.String())
				}
				if _, err := os.Stat(filepath.Join(out, "outcomes.json")); err == nil {
					t.Error("outcomes were written, so the run began")
				}
				return
			}
			// What the run records for certify's bundle.
			dir := t.TempDir()
			r := RunRequest{}
			r.Providers.AllowUnconfined = tt.allow
			targets := []runner.Target{{Provider: &kubeconfig.Provider{Path: kc}}}
			if err := preflightAll(context.Background(), targets, r, dir, io.Discard); err != nil {
				t.Fatal(err)
			}
			got, err := bundle.ReadAccess(dir)
			if err != nil || got != tt.recorded {
				t.Errorf("recorded %+v (%v), want %+v", got, err, tt.recorded)
			}
		})
	}
	// A run on a cluster it started records that.
	dir := t.TempDir()
	if err := preflightAll(context.Background(), nil, RunRequest{}, dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, err := bundle.ReadAccess(dir); err != nil || got != (bundle.Access{Cluster: bundle.ClusterStarted}) {
		t.Errorf("recorded %+v (%v) for a cluster the run started", got, err)
	}
}

// verify-bundle says when a bundle's run was unconfined.
func TestVerifyBundleSaysUnconfined(t *testing.T) {
	for _, tt := range []struct {
		acc  bundle.Access
		want string
	}{
		{bundle.Access{Cluster: bundle.ClusterVisited, Confined: "older", Unconfined: true}, "  UNCONFINED: the run wrote to a cluster where draconform's admission policy did not confine its writes (found: older), as --allow-unconfined let it\n"},
		{bundle.Access{Cluster: bundle.ClusterVisited, Confined: "yes"}, ""},
		{bundle.Access{Cluster: bundle.ClusterStarted}, ""},
	} {
		dir := t.TempDir()
		if err := bundle.WriteAccess(dir, tt.acc); err != nil {
			t.Fatal(err)
		}
		if got := accessLine(dir); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.acc, got, tt.want)
		}
	}
}
