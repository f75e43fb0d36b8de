package spec

// KEPSections are the sections of KEP-6406 (and the KEPs it builds on) that a
// case may trace to. draconform docs lists each with the cases that cover it,
// so a section with no case is visible at a glance.
var KEPSections = []string{
	"Summary",
	"Goals",
	"Non-Goals",
	"Story 1",
	"Story 2",
	"Notes/Constraints/Caveats",
	"Risks and Mitigations",
	"API",
	"Validation",
	"Scheduler changes",
	"Interaction with existing features",
	"Integration tests",
	"e2e tests",
	"Graduation Criteria",
	"Upgrade / Downgrade Strategy",
	"Version Skew Strategy",
	"Feature Enablement and Rollback",
	"Rollout, Upgrade and Rollback Planning",
	"Monitoring Requirements",
	"Dependencies",
	"Scalability",
	"Troubleshooting",
	// Behaviour of the KEPs this one composes, which it promises to keep.
	"KEP-5004",
	"KEP-5075",
}
