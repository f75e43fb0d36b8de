package access

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PolicyVersion is the version of what draconform rbac prints. It rises
// when the manifest changes what it allows or confines, so that a cluster
// carrying an earlier one is told to apply it again instead of being
// called confined. 1 is every manifest before it carried a version: the
// ownership-only policy, then the first that confined what is written,
// whose role still read pods' logs in every namespace. 2 confined which
// objects were written, not what they did: its pods could name a priority
// class, a real Node, any resources, and leaned on the namespace's Pod
// Security label; its claims could take every device of a class; its
// Nodes could drop their taint; and its role could not read back what
// was installed; and it read pods, events and service accounts in every
// namespace, letting the runner bind only the log role.
const PolicyVersion = 3

// PolicyVersionAnnotation carries PolicyVersion on every object of the
// manifest, for the administrator who looks at them (kubectl get -o yaml).
const PolicyVersionAnnotation = "draconform.dev/policy-version"

// The policy says its version where the runner can read it: the message
// of its first rule, which is what a refused write is told (the API server
// reports the first rule that denies). The runner may not read admission
// policies themselves, and need not.
func versionMark(v int) string { return fmt.Sprintf("(draconform policy version %d)", v) }

var versionMarkRE = regexp.MustCompile(`\(draconform policy version ([0-9]+)\)`)

// The states of Report.Confined.
const (
	// ConfinedCurrent: the cluster refuses the user's foreign writes with
	// the policy draconform rbac prints today.
	ConfinedCurrent = "yes"
	// ConfinedOlder: it refuses them with an earlier version of
	// draconform's policy, which lets through writes today's refuses.
	ConfinedOlder = "older"
	// Unconfined: the cluster let a dry-run foreign write through.
	Unconfined = "no"
	// ConfinedUnknown: the write was refused, but not by draconform's
	// policy (another policy, a webhook), or the check could not be made.
	ConfinedUnknown = "unknown"
)

// confinement reads a refused dry-run write's message: which version of
// draconform's policy refused it, if any.
func confinement(msg string) string {
	if m := versionMarkRE.FindStringSubmatch(msg); m != nil {
		if v, err := strconv.Atoi(m[1]); err == nil && v >= PolicyVersion {
			return ConfinedCurrent
		}
		return ConfinedOlder
	}
	// Policies of draconform before the version mark: refused by name.
	if strings.Contains(msg, "ValidatingAdmissionPolicy '"+RoleName+"'") || strings.Contains(msg, RunLabel) {
		return ConfinedOlder
	}
	return ConfinedUnknown
}
