package access

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// The most a container of the run's, or the pod as a whole, may request of
// what every workload on a node shares. The suites' pods request none of
// it; the bounds leave room for a cluster that defaults a little, and
// keep a runner's identity from reserving a node's capacity.
const (
	MaxCPU              = "500m"
	MaxMemory           = "512Mi"
	MaxEphemeralStorage = "1Gi"
	// MaxRunResource bounds a request of the case's own extended resources
	// (<prefix>.draconform.test/*, deviceclass.resource.kubernetes.io/<prefix>-*),
	// whose class may select a real driver's devices: the suites ask for
	// at most 5.
	MaxRunResource = "8"
)

// podVariables are what the pod rules read: every container of the pod,
// the node selector terms and pod affinity terms of its affinity, and the
// request maps of its containers and of the pod itself. The policy
// evaluates a variable only where a rule reads it, so none is read on an
// object that is not a pod.
func podVariables() []admissionv1.Variable {
	return []admissionv1.Variable{
		{Name: "podWrite", Expression: `variables.write && variables.res == '/pods'`},
		{Name: "containers", Expression: `object.spec.containers + object.spec.?initContainers.orValue([]) + object.spec.?ephemeralContainers.orValue([])`},
		{Name: "podSC", Expression: `object.spec.?securityContext.orValue({})`},
		{Name: "nodeTerms", Expression: `object.spec.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([]) +
object.spec.?affinity.?nodeAffinity.?preferredDuringSchedulingIgnoredDuringExecution.orValue([]).map(p, p.preference)`},
		{Name: "podAffinityTerms", Expression: `object.spec.?affinity.?podAffinity.?requiredDuringSchedulingIgnoredDuringExecution.orValue([]) +
object.spec.?affinity.?podAffinity.?preferredDuringSchedulingIgnoredDuringExecution.orValue([]).map(w, w.podAffinityTerm)`},
		{Name: "podRequests", Expression: `variables.containers.map(c, c.?resources.?requests.orValue({})) + [object.spec.?resources.?requests.orValue({})]`},
	}
}

// podHost: a pod asks for nothing of its node's (privilege, capabilities
// beyond what restricted allows, its files, its namespaces, its ports).
const podHost = `!variables.podWrite ||
(!object.spec.?hostNetwork.orValue(false) && !object.spec.?hostPID.orValue(false) && !object.spec.?hostIPC.orValue(false) &&
 !object.spec.?volumes.orValue([]).exists(v, has(v.hostPath)) &&
 variables.containers.all(c,
   !c.?securityContext.?privileged.orValue(false) &&
   c.?securityContext.?capabilities.?add.orValue([]).all(x, x == 'NET_BIND_SERVICE') &&
   c.?ports.orValue([]).all(p, p.?hostPort.orValue(0) == 0)))`

// podNonRoot is Pod Security restricted's user rules, held by the policy
// itself: a namespace's labels, or an exemption in the cluster's Pod
// Security configuration (a user, a runtime class), do not loosen them.
const podNonRoot = `!variables.podWrite ||
(variables.podSC.?runAsUser.orValue(1) != 0 && !variables.podSC.?windowsOptions.?hostProcess.orValue(false) &&
 (variables.podSC.?runAsNonRoot.orValue(false) || variables.containers.all(c, c.?securityContext.?runAsNonRoot.orValue(false))) &&
 variables.containers.all(c, c.?securityContext.?runAsUser.orValue(1) != 0 && c.?securityContext.?runAsNonRoot.orValue(true) &&
   !c.?securityContext.?windowsOptions.?hostProcess.orValue(false) &&
   c.?securityContext.?allowPrivilegeEscalation.orValue(true) == false &&
   c.?securityContext.?capabilities.?drop.orValue([]).exists(x, x == 'ALL')))`

// podProfiles is restricted's (and baseline's) profile rules: seccomp
// RuntimeDefault or Localhost, no unconfined AppArmor, SELinux only as
// containers run, the default /proc, no sysctl.
const podProfiles = `!variables.podWrite ||
((variables.podSC.?seccompProfile.?type.orValue('') in ['RuntimeDefault', 'Localhost'] ||
  variables.containers.all(c, c.?securityContext.?seccompProfile.?type.orValue('') in ['RuntimeDefault', 'Localhost'])) &&
 variables.podSC.?appArmorProfile.?type.orValue('') != 'Unconfined' &&
 object.metadata.?annotations.orValue({}).all(k, !k.startsWith('container.apparmor.security.beta.kubernetes.io/') || object.metadata.annotations[k] != 'unconfined') &&
 variables.podSC.?seLinuxOptions.?type.orValue('') in ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'] &&
 variables.podSC.?seLinuxOptions.?user.orValue('') == '' && variables.podSC.?seLinuxOptions.?role.orValue('') == '' &&
 variables.podSC.?sysctls.orValue([]).size() == 0 &&
 variables.containers.all(c,
   c.?securityContext.?seccompProfile.?type.orValue('RuntimeDefault') != 'Unconfined' &&
   c.?securityContext.?appArmorProfile.?type.orValue('') != 'Unconfined' &&
   c.?securityContext.?procMount.orValue('Default') == 'Default' &&
   c.?securityContext.?seLinuxOptions.?type.orValue('') in ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'] &&
   c.?securityContext.?seLinuxOptions.?user.orValue('') == '' && c.?securityContext.?seLinuxOptions.?role.orValue('') == ''))`

// podVolumes: only volumes that live and die with the pod, and hold
// nothing but what the pod's namespace gives it (its service account's
// token comes as a projected volume). A claim's or an ephemeral volume
// would provision storage; any other type reaches past the pod.
const podVolumes = `!variables.podWrite ||
object.spec.?volumes.orValue([]).all(v, v.all(k, k in ['name', 'emptyDir', 'configMap', 'secret', 'downwardAPI', 'projected']))`

// podRuntime: no runtime class, whose handler (a VM, a sandbox, a
// privileged runtime) and exemptions are the cluster's.
const podRuntime = `!variables.podWrite || object.spec.?runtimeClassName.orValue('') == ''`

// podPriority: no priority class, which would let the pod preempt the
// cluster's workloads and outlast them under pressure; a cluster's global
// default class, which admission gives every pod that names none, is
// accepted where its priority is 0 or less.
const podPriority = `!variables.podWrite ||
object.spec.?priorityClassName.orValue('') == '' || object.spec.?priority.orValue(0) <= 0`

// podOnRunNode: a pod names no Node but its case's (the namespace is the
// prefix): not by nodeName (on create: the scheduler, not the runner,
// binds the others), nor by hostname or name in its node selector or
// node affinity. Other labels select, they do not name: a driver
// profile's pods select the cluster's driver nodes so.
const podOnRunNode = `!variables.podWrite ||
((request.operation != 'CREATE' || object.spec.?nodeName.orValue('') == '' || object.spec.nodeName.startsWith(request.namespace + '-')) &&
 object.spec.?nodeSelector[?'kubernetes.io/hostname'].orValue(request.namespace + '-').startsWith(request.namespace + '-') &&
 variables.nodeTerms.all(t,
   t.?matchExpressions.orValue([]).all(e, e.key != 'kubernetes.io/hostname' || e.?values.orValue([]).all(v, v.startsWith(request.namespace + '-'))) &&
   t.?matchFields.orValue([]).all(e, e.key != 'metadata.name' || e.?values.orValue([]).all(v, v.startsWith(request.namespace + '-')))))`

// podBesideOwn: pod affinity looks at the pod's own namespace only, so it
// cannot put the pod on the Node of a chosen workload of the cluster's.
const podBesideOwn = `!variables.podWrite ||
variables.podAffinityTerms.all(t, !has(t.namespaceSelector) && t.?namespaces.orValue([]).all(n, n == request.namespace))`

// podResources: each container, and the pod, requests at most a little
// CPU, memory and ephemeral storage, and of extended resources only the
// case's own, a few at most.
const podResources = `!variables.podWrite ||
variables.podRequests.all(m, m.all(k,
  (k == 'cpu' && !quantity(m[k]).isGreaterThan(quantity('` + MaxCPU + `'))) ||
  (k == 'memory' && !quantity(m[k]).isGreaterThan(quantity('` + MaxMemory + `'))) ||
  (k == 'ephemeral-storage' && !quantity(m[k]).isGreaterThan(quantity('` + MaxEphemeralStorage + `'))) ||
  ((k.startsWith(request.namespace + '.draconform.test/') || k.startsWith('deviceclass.resource.kubernetes.io/' + request.namespace + '-')) &&
   !quantity(m[k]).isGreaterThan(quantity('` + MaxRunResource + `')))))`

// podInRestricted: a pod is created only where restricted is enforced,
// besides the rules above, which hold whatever the namespace says. It
// comes after them, so that a refusal names the field at fault.
const podInRestricted = `!(request.operation == 'CREATE' && variables.res == '/pods') ||
namespaceObject.?metadata.?labels[?'` + PodSecurityEnforce + `'].orValue('') == '` + PodSecurityLevel + `'`

// podValidations are the pod rules, in the order a refusal reports them.
func podValidations(v func(expr, msg string) admissionv1.Validation) []admissionv1.Validation {
	const pod = "a pod of draconform's "
	return []admissionv1.Validation{
		v(podHost, pod+"is not privileged, adds no capability but NET_BIND_SERVICE, mounts no hostPath, uses no host network, PID, IPC or port"),
		v(podNonRoot, pod+"runs as non-root (runAsNonRoot, no runAsUser 0, allowPrivilegeEscalation false, every capability dropped, no Windows host process), as Pod Security "+PodSecurityLevel+" asks, whatever its namespace's labels"),
		v(podProfiles, pod+"runs under seccomp RuntimeDefault or Localhost, never unconfined seccomp or AppArmor, with no SELinux user, role or type of its own, the default /proc and no sysctl"),
		v(podVolumes, pod+"mounts only emptyDir, configMap, secret, downwardAPI and projected volumes"),
		v(podRuntime, pod+"names no runtimeClassName"),
		v(podPriority, pod+"names no priorityClassName (a cluster's global default of priority 0 or less aside): a higher priority preempts the cluster's workloads"),
		v(podOnRunNode, pod+"names no nodeName, and no Node by kubernetes.io/hostname or metadata.name in its nodeSelector or node affinity, but its case's fake Nodes (<namespace>-<name>)"),
		v(podBesideOwn, pod+"has pod affinity to its own namespace's pods only: no namespaces, no namespaceSelector"),
		v(podResources, pod+"requests at most cpu "+MaxCPU+", memory "+MaxMemory+" and ephemeral-storage "+MaxEphemeralStorage+" per container and per pod, and of extended resources only its case's (<namespace>.draconform.test/*, deviceclass.resource.kubernetes.io/<namespace>-*), at most "+MaxRunResource),
		v(podInRestricted, pod+"is created only in a namespace that enforces Pod Security "+PodSecurityLevel+" ("+PodSecurityEnforce+"="+PodSecurityLevel+")"),
	}
}
