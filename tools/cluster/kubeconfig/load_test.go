package kubeconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// An EKS/GKE/AKS style kubeconfig authenticates through an exec plugin:
// what other processes are handed must keep it, or they lose their
// credentials.
func TestExportKeepsExecPlugin(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "config")
	write(t, src, `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: "https://prod.example:443", certificate-authority-data: Y2E=}
- name: other
  cluster: {server: "https://other.example:443"}
users:
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args: [eks, get-token, --cluster-name, prod]
      interactiveMode: Never
- name: other
  user: {token: other-secret}
contexts:
- name: prod
  context: {cluster: prod, user: sso}
- name: other
  context: {cluster: other, user: other}
current-context: other
`)
	p := &Provider{Path: src, Context: "prod"}
	c, err := p.Start(context.Background(), "defaults", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RESTConfig(); got.Host != "https://prod.example:443" || got.ExecProvider == nil || got.ExecProvider.Command != "aws" {
		t.Fatalf("--context prod not honoured: host %s, exec %+v", got.Host, got.ExecProvider)
	}
	out := filepath.Join(dir, "handed-on")
	if err := Export(c, out); err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if kc.CurrentContext != "prod" || len(kc.Contexts) != 1 || len(kc.AuthInfos) != 1 {
		t.Errorf("the handed-on kubeconfig must hold the one context used, got current %q, %d contexts, %d users", kc.CurrentContext, len(kc.Contexts), len(kc.AuthInfos))
	}
	if u := kc.AuthInfos["sso"]; u == nil || u.Exec == nil || strings.Join(u.Exec.Args, " ") != "eks get-token --cluster-name prod" {
		t.Errorf("the exec plugin was lost: %+v", kc.AuthInfos)
	}
	data, _ := os.ReadFile(out)
	if strings.Contains(string(data), "other-secret") {
		t.Error("another context's token was handed on")
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	cfg, err := Load(out)
	if err != nil || cfg.ExecProvider == nil {
		t.Errorf("another process cannot load it with its exec plugin: %v", err)
	}
}

// $KUBECONFIG lists files that kubectl merges: one may hold the cluster
// and context, another the user.
func TestKUBECONFIGFilesAreMerged(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(t, a, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://merged.example:6443"}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`)
	write(t, b, `apiVersion: v1
kind: Config
users:
- name: u
  user: {token: from-b}
`)
	t.Setenv("KUBECONFIG", a+string(os.PathListSeparator)+b)
	c, err := (&Provider{}).Start(context.Background(), "defaults", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := c.RESTConfig(); cfg.Host != "https://merged.example:6443" || cfg.BearerToken != "from-b" {
		t.Errorf("files not merged: host %s token %q", cfg.Host, cfg.BearerToken)
	}
}

func TestWriteKeepsExecOfARESTConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kc")
	cfg := &rest.Config{Host: "https://x:6443"}
	cfg.ExecProvider = &clientcmdExec
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || got.ExecProvider == nil || got.ExecProvider.Command != "gke-gcloud-auth-plugin" {
		t.Errorf("exec lost: %v %+v", err, got)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

var clientcmdExec = clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "gke-gcloud-auth-plugin", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
