package build

// metricsMutants are mistakes of the signal the KEP's PRR names: the pod
// stays pending with the right message and no claim, but an operator
// watching scheduler_unschedulable_pods{plugin="DynamicResources"} never
// sees it rise.
func metricsMutants() []Mutant {
	return []Mutant{
		{
			Name: "skew-guard-as-error",
			Mistake: "scheduler with its gate off refuses a class that sets the field with an internal error instead of an unschedulable status: " +
				"the pod stays pending with the message, retried as a failure and counted under no plugin, so the rollback signal the PRR names never rises",
			Edits: []Edit{createRequests().replace("\t\t\treturn nil, nil, statusUnschedulable(logger, fmt.Sprintf(\""+skewGuardMessage+"\", class.Name), \"pod\", klog.KObj(pod), \"deviceClass\", klog.KObj(class))\n",
				"\t\t\treturn nil, nil, statusError(logger, fmt.Errorf(\""+skewGuardMessage+"\", class.Name), \"pod\", klog.KObj(pod), \"deviceClass\", klog.KObj(class)) // mutant: an error, not unschedulable\n",
			)},
		},
	}
}
