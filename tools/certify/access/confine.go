package access

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// CaseLabel carries a case's hash on everything the case creates, beside
// RunLabel; it is steps.CaseLabel, repeated as RunLabel is.
const CaseLabel = "draconform.dev/case"

// PodSecurityEnforce is the namespace label Pod Security admission reads;
// every namespace a run creates sets it to PodSecurityLevel.
const (
	PodSecurityEnforce = "pod-security.kubernetes.io/enforce"
	PodSecurityLevel   = "restricted"
)

// The run's prefix, dc-<run>-<case>, names its namespace, its fake Nodes
// ("<prefix>-n1"), its DeviceClasses, its drivers ("<prefix>.draconform.test")
// and its extended resource names ("<prefix>.draconform.test/gpu"). The
// policy cannot read other objects (is this Node the run's?), so it holds
// each write to that naming: an object's run and case labels give its
// prefix, and what it names (a driver, a Node, a class, a resource) must
// carry it. No Node, driver or class of the cluster's is named so.
func confineVariables() []admissionv1.Variable {
	return []admissionv1.Variable{
		{Name: "write", Expression: `request.operation == 'CREATE' || request.operation == 'UPDATE'`},
		{Name: "res", Expression: `request.resource.group + '/' + request.resource.resource`},
		{Name: "labels", Expression: `object != null && has(object.metadata.labels) ? object.metadata.labels : {}`},
		{Name: "run", Expression: `variables.labels[?'` + RunLabel + `'].orValue('')`},
		{Name: "caseHash", Expression: `variables.labels[?'` + CaseLabel + `'].orValue('')`},
		{Name: "owned", Expression: `variables.run.matches('^[a-z0-9]+$') && variables.caseHash.matches('^[0-9a-f]+$')`},
		{Name: "prefix", Expression: `'dc-' + variables.run + '-' + variables.caseHash`},
		// A claim's device requests, or those of the claims a template
		// makes; null where there are none (the replay marker's spec: {}).
		{Name: "claimRequests", Expression: `(variables.res == 'resource.k8s.io/resourceclaimtemplates' ?
  object.spec.?spec.?devices.?requests : object.spec.?devices.?requests).orValue(null)`},
	}
}

// inRunNamespace: a namespaced write lands in one of the run's namespaces
// (the old rule let a labelled object be created in any namespace), but
// for the fake Nodes' Leases, which live in kube-node-lease.
const inRunNamespace = `!variables.write || namespaceObject == null || variables.res == '/namespaces' ||
(variables.res == 'coordination.k8s.io/leases' && request.namespace == '` + LeaseNamespace + `') ||
(has(namespaceObject.metadata.labels) && '` + RunLabel + `' in namespaceObject.metadata.labels)`

// restrictedNamespace: a namespace the run creates is named for its labels
// and enforces Pod Security restricted, at the latest version.
const restrictedNamespace = `!(variables.write && variables.res == '/namespaces') ||
(variables.owned && object.metadata.name == variables.prefix &&
 variables.labels[?'` + PodSecurityEnforce + `'].orValue('') == '` + PodSecurityLevel + `' &&
 variables.labels[?'` + PodSecurityEnforce + `-version'].orValue('latest') == 'latest')`

// runSlice: a ResourceSlice publishes the devices of the case's driver
// (<prefix>.draconform.test, or a driver under it, as the class barrier's
// probe is) on one of the case's Nodes, or on all Nodes (the barrier's
// probe does: devices no class but the case's selects); never a node
// selector.
const runSlice = `!(variables.write && variables.res == 'resource.k8s.io/resourceslices') ||
(variables.owned && object.metadata.name.startsWith(variables.prefix) &&
 (object.spec.driver == variables.prefix + '.draconform.test' || object.spec.driver.endsWith('.' + variables.prefix + '.draconform.test')) &&
 (object.spec.?nodeName.orValue('').startsWith(variables.prefix + '-') || object.spec.?allNodes.orValue(false)))`

// runClass: a DeviceClass backs only the case's extended resource names,
// so it can never capture the requests of the cluster's workloads.
const runClass = `!(variables.write && variables.res == 'resource.k8s.io/deviceclasses') ||
(variables.owned && object.metadata.name.startsWith(variables.prefix) &&
 (object.spec.?extendedResourceName.orValue('') == '' || object.spec.extendedResourceName.startsWith(variables.prefix + '.draconform.test/')))`

// runClaim: a claim, or a template's, asks only for the case's classes,
// whose names carry its namespace (a class may select a vendor's driver;
// a claim never names the vendor's classes). v1beta1 names the class in
// the request itself.
const runClaim = `!(variables.write && variables.res in ['resource.k8s.io/resourceclaims', 'resource.k8s.io/resourceclaimtemplates']) ||
variables.claimRequests == null ||
variables.claimRequests.all(r,
  r.?deviceClassName.orValue(request.namespace + '-').startsWith(request.namespace + '-') &&
  r.?exactly.?deviceClassName.orValue(request.namespace + '-').startsWith(request.namespace + '-') &&
  (r.?firstAvailable.orValue(null) == null || r.firstAvailable.all(s, s.deviceClassName.startsWith(request.namespace + '-'))))`

// claimNotAll: no request of a claim, or of a template's claims, takes
// every device its class selects (allocationMode All, in a request or any
// of its firstAvailable subrequests; v1beta1 spells it in the request
// itself), nor devices in use by others (adminAccess): a class may select
// a real driver's devices.
const claimNotAll = `!(variables.write && variables.res in ['resource.k8s.io/resourceclaims', 'resource.k8s.io/resourceclaimtemplates']) ||
variables.claimRequests == null ||
variables.claimRequests.all(r,
  r.?allocationMode.orValue('') != 'All' && !r.?adminAccess.orValue(false) &&
  r.?exactly.?allocationMode.orValue('') != 'All' && !r.?exactly.?adminAccess.orValue(false) &&
  (r.?firstAvailable.orValue(null) == null || r.firstAvailable.all(s, s.?allocationMode.orValue('') != 'All')))`

// runNodeTaint: a fake Node carries its run's taint, on create and on
// every update, so that only the run's pods, which tolerate it by the
// run's id, land there.
const runNodeTaint = `!(variables.write && variables.res == '/nodes') ||
object.spec.?taints.orValue([]).exists(t, t.key == '` + RunLabel + `' && t.?value.orValue('') == variables.run && t.effect == 'NoSchedule')`

// runNames: the fake Nodes and their Leases are named with the prefix, so
// that the names pods and slices give are the run's Nodes.
const runNames = `!(variables.write && variables.res in ['/nodes', 'coordination.k8s.io/leases']) ||
(variables.owned && object.metadata.name.startsWith(variables.prefix + '-'))`

// runLogBinding: the RoleBindings the runner makes, in a case's namespace
// (inRunNamespace), grant LogRoleName or ReadRoleName to itself alone, so
// that it reads the pods, events and logs of that namespace and no
// others'.
const runLogBinding = `!(variables.write && variables.res == 'rbac.authorization.k8s.io/rolebindings') ||
(object.roleRef.kind == 'ClusterRole' && object.roleRef.name in ['` + LogRoleName + `', '` + ReadRoleName + `'] &&
 object.?subjects.orValue([]).size() == 1 && object.subjects[0].kind == 'User' && object.subjects[0].name == request.userInfo.username)`

// confineValidations are the policy's rules on what is written, each with
// the message a refused write gets.
func confineValidations() []admissionv1.Validation {
	v := func(expr, msg string) admissionv1.Validation {
		return admissionv1.Validation{Expression: expr, Message: msg, Reason: ptr.To(metav1.StatusReasonForbidden)}
	}
	return append(append([]admissionv1.Validation{
		v(inRunNamespace, "draconform writes namespaced objects only in its own namespaces (labelled "+RunLabel+"), and Leases in "+LeaseNamespace),
		v(restrictedNamespace, "a namespace of draconform's is named dc-<run>-<case> after its labels "+RunLabel+" and "+CaseLabel+", and enforces Pod Security "+PodSecurityLevel+" ("+PodSecurityEnforce+"="+PodSecurityLevel+", latest version)"),
	}, podValidations(v)...), []admissionv1.Validation{
		v(runSlice, "a ResourceSlice of draconform's is for its case's driver (dc-<run>-<case>.draconform.test, or one under it) on its case's Node (dc-<run>-<case>-*) or all Nodes, named after its labels"),
		v(runClass, "a DeviceClass of draconform's is named dc-<run>-<case>* after its labels, and its extendedResourceName, if any, is its case's (dc-<run>-<case>.draconform.test/*)"),
		v(runClaim, "a ResourceClaim or ResourceClaimTemplate of draconform's asks only for its case's DeviceClasses (<namespace>-*)"),
		v(claimNotAll, "a ResourceClaim or ResourceClaimTemplate of draconform's asks for no device with allocationMode All, in a request or a firstAvailable subrequest, and for no adminAccess"),
		v(runNames, "a Node or Lease of draconform's is named dc-<run>-<case>-* after its labels"),
		v(runNodeTaint, "a Node of draconform's carries its run's taint "+RunLabel+"=<run>:NoSchedule, from its creation on: an update does not remove it"),
		v(runLogBinding, "a RoleBinding of draconform's binds the ClusterRole "+LogRoleName+" or "+ReadRoleName+" to the runner itself (a User of its own name), and nothing else"),
	}...)
}
