// Package sweep removes from a cluster what draconform runs left there:
// the namespaces, DeviceClasses, ResourceSlices and Nodes labelled with a
// run. A run that is still going is left alone unless it is named: its
// kubelet-less Nodes renew Leases, as kubelets do, so a Lease that has not
// been renewed within its duration marks a run that was killed.
package sweep
