package cli

import (
	"strings"
	"testing"
)

// What clis and image refuse, they refuse before building anything, with
// exit 2 and the valid names.
func TestClisAndImageRefuseUnknownNames(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"clis"}, "kind, helm, kubectl, sonobuoy"},
		{[]string{"clis", "kind", "minikube"}, "minikube: no tool of that name; draconform clis builds kind, helm, kubectl, sonobuoy"},
		{[]string{"image", "--of", "sonobuoi"}, "did you mean sonobuoy"},
		{[]string{"image", "--print", "digest"}, "--print digest: path or digest-ref"},
	} {
		code, out, stderr := run(t, tt.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, stderr, tt.want)
		}
	}
}
