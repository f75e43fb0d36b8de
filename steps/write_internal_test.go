package steps

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/draconform/draconform/tools/lang/spec"
)

func TestCheckOutcome(t *testing.T) {
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "resource.k8s.io", Kind: "DeviceClass"}, "gpu",
		nil)
	invalid.ErrStatus.Message = `DeviceClass.resource.k8s.io "gpu" is invalid: spec.extendedResourceCapacityRequests: Forbidden: requires extendedResourceName`
	exists := apierrors.NewAlreadyExists(schema.GroupResource{Group: "resource.k8s.io", Resource: "deviceclasses"}, "dc-t-abc123-gpu")
	rejected := &spec.WriteExpect{Rejected: "requires extendedResourceName"}
	warned := &spec.WriteExpect{Warning: "unknown field"}
	quiet := &spec.WriteExpect{NoWarning: true}
	tests := []struct {
		name     string
		want     *spec.WriteExpect
		err      error
		warnings []string
		fails    []string
	}{
		// Accepted, by default.
		{name: "accepted"},
		{name: "accepted with a warning, none expected either way", warnings: []string{"deprecated"}},
		{name: "rejected, acceptance expected", err: invalid,
			fails: []string{"must be accepted, but the API server rejected it", "spec.extendedResourceCapacityRequests: Forbidden"}},
		{name: "already exists", err: exists,
			fails: []string{"must be accepted, but the object already exists", "leftover of an earlier run", "draconform cleanup", "dc-t-abc123-gpu"}},
		{name: "empty expect is acceptance", want: &spec.WriteExpect{}, err: invalid, fails: []string{"must be accepted"}},

		// Rejected.
		{name: "rejected with the message", want: rejected, err: invalid},
		{name: "rejected with a warning too", want: rejected, err: invalid, warnings: []string{"x"}},
		{name: "accepted, rejection expected", want: rejected, warnings: []string{"unknown field \"spec.x\""},
			fails: []string{"was accepted, but it must be rejected", `"requires extendedResourceName"`, `warnings: "unknown field \"spec.x\""`}},
		{name: "accepted silently, rejection expected", want: rejected, fails: []string{"was accepted", "warnings: none"}},
		{name: "rejected with another message", want: &spec.WriteExpect{Rejected: "must be a quantity"}, err: invalid,
			fails: []string{"was rejected as expected, but the error does not contain", `"must be a quantity"`, "Forbidden: requires extendedResourceName"}},
		{name: "rejection message is case-sensitive", want: &spec.WriteExpect{Rejected: "Requires ExtendedResourceName"}, err: invalid,
			fails: []string{"does not contain"}},

		// Warned.
		{name: "warning matches", want: warned, warnings: []string{"other", `unknown field "spec.foo"`}},
		{name: "no warning", want: warned, fails: []string{`was accepted, but with no warning containing "unknown field"`, "warnings: none"}},
		{name: "other warnings", want: warned, warnings: []string{"deprecated", "duplicate"},
			fails: []string{"no warning containing", `"deprecated", "duplicate"`}},
		{name: "rejected, warning expected", want: warned, err: invalid, warnings: []string{"unknown field x"},
			fails: []string{"must be accepted, but the API server rejected it"}},

		// Quiet.
		{name: "no warning as required", want: quiet},
		{name: "a warning, none allowed", want: quiet, warnings: []string{"spec.x: dropped"},
			fails: []string{"was accepted, but it must not warn", `"spec.x: dropped"`}},
		{name: "rejected, quiet acceptance expected", want: quiet, err: invalid, fails: []string{"must be accepted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOutcome(tt.want, tt.err, tt.warnings)
			if tt.fails == nil {
				if err != nil {
					t.Fatalf("must pass, got: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("must fail with %q, but passed", tt.fails)
			}
			for _, s := range tt.fails {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("failure does not mention %q:\n%v", s, err)
				}
			}
			// The API error stays reachable for callers that branch on it.
			if tt.err != nil && tt.want != rejected && !errors.Is(err, tt.err) && !strings.Contains(err.Error(), tt.err.Error()) {
				t.Errorf("the API error is lost: %v", err)
			}
		})
	}
}

func TestCheckOutcomeKeepsAPIErrorStatus(t *testing.T) {
	exists := apierrors.NewAlreadyExists(schema.GroupResource{Resource: "pods"}, "p1")
	err := checkOutcome(nil, exists, nil)
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("%v: the AlreadyExists status is not wrapped", err)
	}
}

func TestWarningLog(t *testing.T) {
	l := &warningLog{}
	l.HandleWarningHeader(299, "-", "kept")
	l.HandleWarningHeader(199, "-", "other code")
	l.HandleWarningHeader(299, "-", "")
	if got := fmt.Sprint(l.list()); got != "[kept]" {
		t.Errorf("warnings %s, want [kept]", got)
	}
	if got := quoteAll(nil); got != "none" {
		t.Errorf("quoteAll(nil) = %q", got)
	}
}

// invalid: and refused: read the API status, never its words: a release
// that words its errors otherwise passes, one that refuses for another
// reason or at another field fails.
func TestCheckRefusalReadsTheStatusNotTheWords(t *testing.T) {
	gk := schema.GroupKind{Group: "resource.k8s.io", Kind: "DeviceClass"}
	at := func(detail string) error {
		return apierrors.NewInvalid(gk, "c", field.ErrorList{field.Invalid(field.NewPath("spec").Child("extendedResourceCapacityRequests", "requests").Key("shares"), "0", detail)})
	}
	v137, v138 := at("must be greater than or equal to 0"), at("some other wording entirely")
	elsewhere := apierrors.NewInvalid(gk, "c", field.ErrorList{field.Invalid(field.NewPath("spec", "selectors"), "x", "bad")})
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("exceeded quota: q"))
	tests := []struct {
		name  string
		want  spec.WriteExpect
		err   error
		fails string
	}{
		{name: "the field, in one wording", want: spec.WriteExpect{Invalid: "spec.extendedResourceCapacityRequests.requests"}, err: v137},
		{name: "the field, in another", want: spec.WriteExpect{Invalid: "spec.extendedResourceCapacityRequests.requests"}, err: v138},
		{name: "the key itself", want: spec.WriteExpect{Invalid: "spec.extendedResourceCapacityRequests.requests[shares]"}, err: v137},
		{name: "a prefix of a name is no parent", want: spec.WriteExpect{Invalid: "spec.extendedResourceCapacityRequests.req"}, err: v137, fails: "none of them at or under"},
		{name: "another field", want: spec.WriteExpect{Invalid: "spec.extendedResourceCapacityRequests"}, err: elsewhere, fails: "at spec.selectors, none of them"},
		{name: "another reason", want: spec.WriteExpect{Invalid: "spec"}, err: forbidden, fails: `with reason "Forbidden"`},
		{name: "accepted", want: spec.WriteExpect{Invalid: "spec"}, fails: "was accepted, but it must be refused as Invalid at spec"},
		{name: "no API status", want: spec.WriteExpect{Refused: spec.RefusedAny}, err: errors.New("connection refused"), fails: "without an API status"},
		{name: "refused for a reason", want: spec.WriteExpect{Refused: "Forbidden"}, err: forbidden},
		{name: "refused for another", want: spec.WriteExpect{Refused: "Forbidden"}, err: v137, fails: `with reason "Invalid"`},
		{name: "refused at all", want: spec.WriteExpect{Refused: spec.RefusedAny}, err: v138},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOutcome(&tt.want, tt.err, nil)
			switch {
			case tt.fails == "" && err != nil:
				t.Fatalf("must pass, got: %v", err)
			case tt.fails != "" && (err == nil || !strings.Contains(err.Error(), tt.fails)):
				t.Fatalf("must fail with %q, got: %v", tt.fails, err)
			}
		})
	}
}
