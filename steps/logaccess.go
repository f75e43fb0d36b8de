package steps

import "context"

// LogRoleName is the ClusterRole draconform rbac ships that grants reading
// pods' logs; it is access.LogRoleName, repeated as RunLabel is. On a
// cluster the run did not start, the runner may read logs only where it
// binds this role: in its case's namespace, to itself.
const LogRoleName = "draconform-runner-logs"

// grantLogs binds LogRoleName to the runner in the case's namespace, once,
// after a log read was refused: the role draconform rbac prints reads no
// log cluster-wide, so that the cluster's own pods' (kube-system's) stay
// unread. An administrator's credentials never get here: their read is
// not refused.
func (env *Env) grantLogs(ctx context.Context) error {
	env.mu.Lock()
	done := env.logsGranted
	env.logsGranted = true
	env.mu.Unlock()
	if done {
		return nil
	}
	return env.bindToSelf(ctx, LogRoleName, "to read its pods' logs")
}
