package usecase

// kubectl gives, by target, the kubectl command that reaches the cluster a
// --keep-on-failure run kept a namespace on: the run's own kubeconfig and
// context for --provider kubeconfig (the embedded providers' clusters stop
// with the run, and a kind cluster is deleted with it unless --kind-keep).
func (f *Providers) kubectl() map[string]string {
	cmd := "kubectl"
	if f.Kubeconfig.Path != "" {
		cmd += " --kubeconfig " + shellQuote(f.Kubeconfig.Path)
	}
	if f.Kubeconfig.Context != "" {
		cmd += " --context " + shellQuote(f.Kubeconfig.Context)
	}
	return map[string]string{"kubeconfig": cmd}
}

// gone says, by target, why a cluster the run did not start to discard
// still goes at its end: kind's, unless --kind-keep.
func (f *Providers) gone() map[string]string {
	if f.Kind.Keep {
		return nil
	}
	return map[string]string{"kind": "kind's clusters are deleted when the run ends (--kind-keep keeps them), and the namespace with them"}
}
