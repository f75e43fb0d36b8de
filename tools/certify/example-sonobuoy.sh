#!/usr/bin/env bash
# tools/certify/example-sonobuoy.sh: step 6 of make certify-example-kind
# (tools/certify/example-kind.sh), as operators run conformance: the same
# claim on the same kind cluster, as a Sonobuoy plugin under a confined
# service account of its own. Its bundle, fetched with sonobuoy retrieve,
# must reach certify's verdict by the same outcomes (verify-bundle
# --same-as), and after sonobuoy delete nothing of the plugin's may be left.
#
# Environment (example-kind.sh sets it): KUBECONFIG, CLUSTER, DRACONFORM,
# OUT, PROFILE, PRODUCT, CLAIM, CELL, and CERTIFY_BUNDLE, certify's bundle.
# kind, kubectl and sonobuoy come from PATH.
set -euo pipefail
: "${KUBECONFIG:?}" "${CLUSTER:?}" "${DRACONFORM:?}" "${OUT:?}" "${PROFILE:?}" "${PRODUCT:?}" "${CLAIM:?}" "${CELL:?}" "${CERTIFY_BUNDLE:?}"
NS=sonobuoy
began=$SECONDS
say() { printf 'certify-example-kind (sonobuoy): [%ss] %s\n' "$((SECONDS - began))" "$*" >&2; }
mkdir -p "$OUT"

# What of the plugin's install could outlive sonobuoy delete: its
# namespace, and every object labelled for it (sonobuoy.DeleteLabels).
leftovers() {
	kubectl get namespace "$NS" --ignore-not-found -o name
	kubectl get clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding \
		-l "component=sonobuoy,namespace=$NS" -o name
	kubectl get role,rolebinding -A -l "component=sonobuoy,namespace=$NS" -o name
	# The shared read roles, where this install created them (the
	# namespace then owns them; ones that were there before stay).
	kubectl get clusterrole draconform-runner-logs draconform-runner-reads --ignore-not-found \
		-o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="'"$NS"'")]}{.metadata.name}{"\n"}{end}'
}

ran=
delete() {
	local rc=$?
	trap - EXIT
	if [ -n "$ran" ]; then
		say "sonobuoy delete --all --wait"
		sonobuoy delete --all --wait || rc=1
		# The garbage collector removes what the namespace owned a moment
		# after it is gone.
		for _ in $(seq 30); do [ -z "$(leftovers)" ] && break; sleep 2; done
		left=$(leftovers)
		if [ -n "$left" ]; then
			say "left after sonobuoy delete: $(tr '\n' ' ' <<<"$left")"
			rc=1
		else
			say "nothing of the plugin's is left after sonobuoy delete"
		fi
	fi
	exit "$rc"
}
trap delete EXIT

say "draconform's image and Sonobuoy's, written and loaded into the nodes"
dc_image=$("$DRACONFORM" image --out "$OUT/draconform-image.tar" --print digest-ref)
kind load image-archive "$OUT/draconform-image.tar" --name "$CLUSTER"
sb_image=$("$DRACONFORM" image --of sonobuoy --out "$OUT/sonobuoy-image.tar" --print digest-ref)
kind load image-archive "$OUT/sonobuoy-image.tar" --name "$CLUSTER"

say "the plugin: certify --claim $CLAIM as its own confined account, with the profile and product"
"$DRACONFORM" sonobuoy-plugin --image "$dc_image" --claim "$CLAIM" --as-cell "$CELL" --allow-fake-nodes \
	--driver-profile "$PROFILE" --product "$PRODUCT" >"$OUT/plugin.yaml"
ran=1
"$DRACONFORM" sonobuoy-plugin --rbac --apply --namespace "$NS"

# The worker reaches the aggregator by its Service's name. By default it
# is given the aggregator pod's IPv4 address in brackets, which Sonobuoy
# v0.57.3 built with Go 1.26 refuses to parse ("invalid IP-literal": Go's
# net/url keeps brackets for IPv6); Sonobuoy's published binaries, built
# with an older Go, accept it.
printf '{"Server":{"advertiseaddress":"sonobuoy-aggregator.%s.svc:8080"}}\n' "$NS" >"$OUT/sonobuoy-config.json"
say "sonobuoy run --plugin $OUT/plugin.yaml --sonobuoy-image $sb_image --wait"
sonobuoy run --config "$OUT/sonobuoy-config.json" --namespace "$NS" --plugin "$OUT/plugin.yaml" --sonobuoy-image "$sb_image" --image-pull-policy IfNotPresent \
	--skip-preflight=existingnamespace --wait
sonobuoy status --namespace "$NS" || true
tarball=$(sonobuoy retrieve --namespace "$NS" "$OUT")
sonobuoy results "$tarball"
mkdir -p "$OUT/results"
tar -xzf "$tarball" -C "$OUT/results"
bundle=$OUT/results/plugins/draconform/results/global/bundle
say "its bundle ($bundle) against certify's ($CERTIFY_BUNDLE)"
"$DRACONFORM" verify-bundle "$CERTIFY_BUNDLE" --same-as "$bundle"
