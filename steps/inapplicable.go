package steps

import "errors"

// NotApplicable ends a case as not applicable to the cluster: a step found
// that it cannot check what it promises there (kube-scheduler's attempts,
// on a cluster that does not show them). The runner skips the case with the
// reason and marks the skip inapplicable; it is never a pass, and a step
// returns it instead of passing without having checked.
type NotApplicable struct {
	// Cause is a stable phrase for the golden table; Reason says it all.
	Cause, Reason string
}

func (n *NotApplicable) Error() string { return "does not apply to this cluster: " + n.Reason }

// AsNotApplicable finds a NotApplicable in err's chain.
func AsNotApplicable(err error) (*NotApplicable, bool) {
	var n *NotApplicable
	ok := errors.As(err, &n)
	return n, ok
}

// IsNotApplicable says whether err ends the case as not applicable.
func IsNotApplicable(err error) bool {
	_, ok := AsNotApplicable(err)
	return ok
}
