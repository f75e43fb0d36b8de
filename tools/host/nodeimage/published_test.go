package nodeimage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseReference(t *testing.T) {
	for image, want := range map[string]reference{
		Published:                        {"registry-1.docker.io", "kindest/node", Published[strings.Index(Published, "@")+1:]},
		"kindest/node:v1.37.0":           {"registry-1.docker.io", "kindest/node", "v1.37.0"},
		"busybox":                        {"registry-1.docker.io", "library/busybox", "latest"},
		"127.0.0.1:5000/kindest/node:v1": {"127.0.0.1:5000", "kindest/node", "v1"},
		"localhost/x@sha256:ab":          {"localhost", "x", "sha256:ab"},
		"registry.k8s.io/pause:3.10":     {"registry.k8s.io", "pause", "3.10"},
	} {
		got, err := parseReference(image)
		if err != nil || got != want {
			t.Errorf("parseReference(%q) = %+v, %v; want %+v", image, got, err, want)
		}
	}
}

// standIn is a registry on loopback that serves one manifest behind an
// anonymous Bearer token, as Docker Hub does.
func standIn(t *testing.T, repo, ref string) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/token":
			if r.URL.Query().Get("scope") != "repository:"+repo+":pull" {
				http.Error(w, "wrong scope", http.StatusForbidden)
				return
			}
			_, _ = w.Write([]byte(`{"token":"anonymous-pull"}`))
		case r.Header.Get("Authorization") != "Bearer anonymous-pull":
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="stand-in"`)
			w.WriteHeader(http.StatusUnauthorized)
		case r.Method == http.MethodHead && r.URL.Path == "/v2/"+repo+"/manifests/"+ref:
			w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAnswersAsksTheRegistryAsAPullWould(t *testing.T) {
	digest := Published[strings.Index(Published, "@")+1:]
	srv := standIn(t, "kindest/node", digest)
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	if err := Answers(ctx, host+"/kindest/node:v1.37.0@"+digest, srv.Client()); err != nil {
		t.Errorf("the stand-in serves the image: %v", err)
	}
	err := Answers(ctx, host+"/kindest/node:v1.37.0@sha256:0000", srv.Client())
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("an image the registry lacks: %v, want its 404", err)
	}
	srv.Close()
	if err := Answers(ctx, host+"/kindest/node:v1.37.0@"+digest, http.DefaultClient); err == nil {
		t.Error("a registry that does not answer answered")
	}
}

func TestPickThePublishedImageOnlyWhereItIsServed(t *testing.T) {
	digest := Published[strings.Index(Published, "@")+1:]
	srv := standIn(t, "kindest/node", digest)
	image := strings.TrimPrefix(srv.URL, "http://") + "/kindest/node:v1.37.0@" + digest
	ctx := context.Background()
	if use, why := Pick(ctx, image, false, srv.Client()); use != image {
		t.Errorf("a served image was not picked: %s", why)
	}
	if use, why := Pick(ctx, image, true, srv.Client()); use != "" || !strings.Contains(why, "--offline") {
		t.Errorf("--offline picked %q (%s)", use, why)
	}
	srv.Close()
	if use, why := Pick(ctx, image, false, srv.Client()); use != "" || !strings.Contains(why, "building draconform's own offline") {
		t.Errorf("an image no registry serves was picked: %q (%s)", use, why)
	}
}
