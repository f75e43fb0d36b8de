package build

// draManager is where kube-scheduler's DynamicResources plugin keeps the
// allocations it has reserved but not yet written (in flight until PreBind
// has created the claim and the assume cache holds it).
const draManager = "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go"

// schedulerExtraMutants are mistakes of the scheduler side that only show
// when pods are scheduled together or when a pod asks for more than one
// extended resource.
func schedulerExtraMutants() []Mutant {
	return []Mutant{
		{
			Name: "in-flight-capacity-uncounted",
			Mistake: "scheduler counts a share it has reserved but not yet bound as taking the device's shareID, not its capacity: until PreBind has written the claim, " +
				"the next pod sees the whole capacity free, so pods created together overbook a shareable device",
			Edits: []Edit{replace(Kubernetes, draManager,
				"\t\t\t\tc.logger.V(6).Info(\"Device is in flight for allocation\", \"consumed capacity\", capacity, \"claim\", klog.KObj(claim))\n\t\t\t\taggregatedCapacity.Insert(capacity)\n",
				"\t\t\t\t// mutant: an in-flight share's capacity is counted once the claim is written.\n",
			).in("func (c *claimTracker) GatherAllocatedState(")},
		},
		{
			Name: "capacity-for-the-whole-pod",
			Mistake: "scheduler resolves one capacity per pod, from whichever of its extended resources' classes sets the field, and puts it on every request it synthesizes: " +
				"a container asking for a shared GPU and a whole one gets a share of both",
			Edits: capacityForTheWholePod(),
		},
		{
			Name: "claim-per-failed-attempt",
			Mistake: "scheduler writes the claim it synthesized for a pod whenever an attempt at the pod fails, and deletes it again: " +
				"a pod that waits makes a claim and a delete on every retry, where KEP-5004 makes one claim, once, at PreBind",
			Edits: []Edit{before(Kubernetes, schedulerPlugin, "\t_, status := pl.deallocateOrDeletePodClaims(ctx, pod, state)\n", `	// mutant: a failed attempt writes the pod's synthesized claim, then deletes it.
	if c := state.claims.extendedResourceClaim(); c != nil && isSpecialClaimName(c.Name) {
		written := c.DeepCopy()
		written.Name, written.UID, written.ResourceVersion = "", "", ""
		written.Status = resourceapi.ResourceClaimStatus{}
		if created, err := pl.clientset.ResourceV1().ResourceClaims(pod.Namespace).Create(ctx, written, metav1.CreateOptions{}); err == nil {
			_ = pl.clientset.ResourceV1().ResourceClaims(pod.Namespace).Delete(ctx, created.Name, metav1.DeleteOptions{})
		}
	}
`).in("func (pl *DynamicResources) PostFilter(")},
		},
		{
			Name: "synthesized-requests-tolerate-taints",
			Mistake: "scheduler gives the requests it synthesizes for a class with the field a toleration of every device taint, as if a share were not the tainted device: " +
				"pods are placed on devices their administrator tainted NoSchedule",
			Edits: []Edit{createRequest().replace("\t\t\tCapacity:        capacity.DeepCopy(),\n",
				"\t\t\tCapacity:        capacity.DeepCopy(),\n\t\t\tTolerations:     mutantTolerations(capacity),\n",
			),
				schedulerHelper(`// mutantTolerations tolerates every taint for a request that takes a share.
func mutantTolerations(capacity *resourceapi.CapacityRequirements) []resourceapi.DeviceToleration {
	if capacity == nil {
		return nil
	}
	return []resourceapi.DeviceToleration{{Operator: resourceapi.DeviceTolerationOpExists}}
}

`)},
		},
	}
}

// capacityForTheWholePod puts the capacity of any of a pod's classes on
// every request synthesized for the pod.
func capacityForTheWholePod() []Edit {
	return []Edit{createRequests().replace("\treturn deviceRequests, mappings, nil\n", `	// mutant: the pod's capacity, from any of its classes, on each of its requests.
	var podCapacity *resourceapi.CapacityRequirements
	for i := range deviceRequests {
		if deviceRequests[i].Exactly.Capacity != nil {
			podCapacity = deviceRequests[i].Exactly.Capacity
		}
	}
	for i := range deviceRequests {
		deviceRequests[i].Exactly.Capacity = podCapacity.DeepCopy()
	}
	return deviceRequests, mappings, nil
`)}
}
