package nodeimage

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/defaults"
)

// Published is the node image kind v0.33.0 uses by default, as its source
// names it: where its registry answers, kind's own image serves the gate
// matrix and nothing is built offline.
const Published = defaults.Image

// reference is an image reference split the way a registry is asked.
type reference struct {
	host, repo, ref string
}

// parseReference splits host/repo:tag@digest; Docker Hub's names have no
// host and single names live under library/.
func parseReference(image string) (reference, error) {
	rest, digest, hasDigest := strings.Cut(image, "@")
	r := reference{host: "registry-1.docker.io"}
	if first, after, ok := strings.Cut(rest, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		r.host, rest = first, after
	}
	name, tag := rest, "latest"
	if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") {
		name, tag = rest[:i], rest[i+1:]
	}
	if name == "" {
		return r, fmt.Errorf("image %q names no repository", image)
	}
	if r.host == "registry-1.docker.io" && !strings.Contains(name, "/") {
		name = "library/" + name
	}
	r.repo, r.ref = name, tag
	if hasDigest {
		r.ref = digest
	}
	return r, nil
}

// scheme is https, except for a registry on loopback, which Docker too
// reaches over plain http.
func (r reference) scheme() string {
	host := r.host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return "http"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return "http"
	}
	return "https"
}

// manifestTypes are the manifests a node image is published as.
var manifestTypes = strings.Join([]string{
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
}, ", ")

// Answers asks the image's registry for its manifest, as a pull would
// first (the Registry API v2, with an anonymous token where it asks for
// one). nil means the registry serves the image; the error says what
// answered instead.
func Answers(ctx context.Context, image string, client *http.Client) error {
	r, err := parseReference(image)
	if err != nil {
		return err
	}
	manifest := fmt.Sprintf("%s://%s/v2/%s/manifests/%s", r.scheme(), r.host, r.repo, r.ref)
	resp, err := head(ctx, client, manifest, "")
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		token, err := anonymousToken(ctx, client, resp.Header.Get("WWW-Authenticate"), r.repo)
		if err != nil {
			return fmt.Errorf("%s asks for a token: %w", r.host, err)
		}
		if resp, err = head(ctx, client, manifest, token); err != nil {
			return err
		}
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s for %s", r.host, resp.Status, manifest)
	}
	return nil
}

func head(ctx context.Context, client *http.Client, url, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", manifestTypes)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return resp, nil
}

// anonymousToken follows a Bearer challenge (realm, service, scope) as a
// client without credentials does.
func anonymousToken(ctx context.Context, client *http.Client, challenge, repo string) (string, error) {
	scheme, params, _ := strings.Cut(challenge, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("challenge %q is not Bearer", challenge)
	}
	p := map[string]string{}
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		p[k] = strings.Trim(v, `"`)
	}
	u, err := url.Parse(p["realm"])
	if err != nil || p["realm"] == "" {
		return "", fmt.Errorf("challenge %q has no realm", challenge)
	}
	q := u.Query()
	if p["service"] != "" {
		q.Set("service", p["service"])
	}
	q.Set("scope", "repository:"+repo+":pull")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", u.Host, resp.Status)
	}
	var t struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&t); err != nil {
		return "", fmt.Errorf("token from %s: %w", u.Host, err)
	}
	if t.Token == "" {
		t.Token = t.AccessToken
	}
	return t.Token, nil
}

// Pick returns image when its registry serves it, with what to say about
// the choice; "" when the offline image must be built (offline says so, or
// the registry did not answer within ctx), with why.
func Pick(ctx context.Context, image string, offline bool, client *http.Client) (use, why string) {
	if offline {
		return "", "--offline: building draconform's own node image"
	}
	if err := Answers(ctx, image, client); err != nil {
		return "", fmt.Sprintf("kind's published node image %s is not served here (%v): building draconform's own offline", image, err)
	}
	return image, fmt.Sprintf("kind's published node image %s is served by its registry: kind pulls it (--offline builds draconform's own instead)", image)
}
