#!/usr/bin/env bash
# tools/certify/example-kind.sh (make certify-example-kind): a vendor's day on
# plain kind. The Kubernetes SIG's example DRA driver, a driver nobody here
# wrote, installed from its unmodified chart with helm and certified with the
# commands a driver team types (docs/certify.md walks through them):
#   1. draconform node-image --kep    a kind node image with KEP-6406
#   2. kind create cluster            kind-configs/capacity-on-kep.yaml
#   3. kind load image-archive        the driver's image and the profile's workload
#   4. helm install                   the driver's chart, values only
#   5. draconform rbac, preflight, certify, verify-bundle: as an account
#                                     confined by draconform's admission policy
#   6. Sonobuoy                       the same claim as a Sonobuoy plugin, its
#                                     bundle compared with certify's, then
#                                     sonobuoy delete, checked to leave nothing
# then it deletes the cluster, and stops the Docker engine if it started it.
# Its exit code is certify's, else verify-bundle's, else Sonobuoy's step's.
#
# Environment:
#   IMAGE=vanilla   the release's node image (v1.37.2, no KEP-6406) and
#                   kind-configs/defaults.yaml: still certified as capacity-on,
#                   as a vendor claiming the KEP there would: NOT CONFORMANT
#   SONOBUOY=0      skip step 6
#   DRACONFORM (default: built into OUT), OUT (default _output/certify-example-kind),
#   CLUSTER (kind cluster name, default draconform-example), PROFILE, PRODUCT.
# kind, helm, kubectl and sonobuoy are taken from PATH; where the machine has none,
# draconform clis builds them from the Go module proxy.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-_output/certify-example-kind}
CLUSTER=${CLUSTER:-draconform-example}
PROFILE=${PROFILE:-suites/profiles/dra-example-driver.yaml}
PRODUCT=${PRODUCT:-suites/profiles/dra-example-driver.product.yaml}
IMAGE=${IMAGE:-kep}
SONOBUOY=${SONOBUOY:-1}
CLAIM=kep6406-gates-on
CELL=capacity-on
began=$SECONDS

say() { printf 'certify-example-kind: [%ss] %s\n' "$((SECONDS - began))" "$*" >&2; }

case "$IMAGE" in
kep | vanilla) ;;
*) say "IMAGE=$IMAGE: kep (default) or vanilla"; exit 2 ;;
esac
# Only what this script writes is removed: its own files under OUT.
for d in driver workload run bundle sonobuoy; do rm -rf "${OUT:?}/$d"; done
mkdir -p "$OUT"

if [ -z "${DRACONFORM:-}" ]; then
	say "building draconform into $OUT/draconform"
	go build -ldflags "-X github.com/draconform/draconform/tools/cli.version=$(git describe --always --dirty 2>/dev/null || echo devel)" \
		-o "$OUT/draconform" ./tools/cmd/draconform
	DRACONFORM=$OUT/draconform
fi

# The CLIs a driver team has; built from the module proxy where missing.
need=()
for c in kind helm kubectl; do command -v "$c" >/dev/null || need+=("$c"); done
if [ "$SONOBUOY" = 1 ] && ! command -v sonobuoy >/dev/null; then need+=(sonobuoy); fi
if [ ${#need[@]} -gt 0 ]; then
	say "this machine has no ${need[*]}: draconform clis builds them (pinned versions)"
	PATH="$("$DRACONFORM" clis "${need[@]}"):$PATH"
fi

# The cluster's kubeconfig holds kind's admin credentials: kept in a
# private folder of its own, never in OUT (which CI uploads), and removed.
kc_dir=$(mktemp -d -t draconform-kind-XXXXXX)
export KUBECONFIG=$kc_dir/kubeconfig
engine_ours=
cluster_made=
network_ours=
finish() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$cluster_made" ]; then
		say "deleting the kind cluster $CLUSTER"
		kind delete cluster --name "$CLUSTER" || rc=1
	fi
	rm -rf "$kc_dir"
	# kind keeps its network "kind" for the next cluster: removed when
	# this script's cluster made it and no container is left on it.
	if [ -n "$network_ours" ] && [ -z "$(docker network inspect kind --format '{{range .Containers}}{{.Name}} {{end}}' 2>/dev/null)" ]; then
		say "removing the Docker network kind, which this script's cluster made"
		docker network rm kind >/dev/null || rc=1
	fi
	if [ -n "$engine_ours" ]; then
		say "stopping the Docker engine this script started"
		"$DRACONFORM" engine down || rc=1
	fi
	say "done in $((SECONDS - began))s, exit $rc"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

# A Docker engine: the one DOCKER_HOST (or docker's default) reaches, else
# draconform's own, stopped again at the end if this script started it.
if ! docker info >/dev/null 2>&1; then
	say "no Docker engine answers: draconform engine up --install"
	up=$("$DRACONFORM" engine up --install 2>&1) || { printf '%s\n' "$up" >&2; exit 1; }
	printf '%s\n' "$up" >&2
	grep -q "started earlier" <<<"$up" || engine_ours=1
	DOCKER_HOST=$(grep -o 'DOCKER_HOST=[^ ]*' <<<"$up" | tail -n 1 | cut -d= -f2-)
	export DOCKER_HOST
fi

if [ "$IMAGE" = kep ]; then
	say "1/6: draconform node-image --kep"
	node_image=$("$DRACONFORM" node-image --kep)
	config=kind-configs/$CELL-kep.yaml
else
	# The release has no DRAExtendedResourceCapacity gate to turn on: its
	# cluster starts with its defaults and is still declared capacity-on.
	say "1/6: draconform node-image (the release, without KEP-6406)"
	node_image=$("$DRACONFORM" node-image)
	config=kind-configs/defaults.yaml
fi

say "2/6: kind create cluster --name $CLUSTER --config $config --image $node_image"
cluster_made=1
docker network inspect kind >/dev/null 2>&1 || network_ours=1
kind create cluster --name "$CLUSTER" --config "$config" --image "$node_image" --wait 2m

say "3/6: the driver's image and the profile's workload image, loaded into the nodes"
files=$("$DRACONFORM" example-driver --build-only --out "$OUT/driver")
driver_image=$(awk '$1 == "image" { print $2 }' <<<"$files")
chart=$(awk '$1 == "chart" { print $2 }' <<<"$files")
kind load image-archive "$(awk '$1 == "archive" { print $2 }' <<<"$files")" --name "$CLUSTER"
kind load image-archive "$("$DRACONFORM" image --of workload --out "$OUT/workload/image.tar" --print path)" --name "$CLUSTER"

say "4/6: helm install dra-example-driver $chart (values only)"
helm install dra-example-driver "$chart" --namespace dra-example-driver --create-namespace \
	--set image.repository="${driver_image%:*}" --set image.tag="${driver_image##*:}" \
	--set gpuAllowMultipleAllocations=true --set kubeletPlugin.numDevices=2 --wait --timeout 3m

say "5/6: certify as an account of its own, confined by draconform's admission policy (draconform rbac)"
# As on a cluster one does not own: the run's writes are held by the
# cluster to what it creates, and its bundle says so. The Sonobuoy plugin
# runs as such an account too, so the two runs can be compared.
kubectl create namespace draconform
kubectl create serviceaccount draconform --namespace draconform
"$DRACONFORM" rbac --subject serviceaccount:draconform/draconform | kubectl apply -f -
certify_kc=$kc_dir/certify.kubeconfig
kubectl config view --minify --raw >"$certify_kc"
kubectl --kubeconfig "$certify_kc" config set-credentials draconform --token "$(kubectl create token draconform --namespace draconform --duration 2h)"
kubectl --kubeconfig "$certify_kc" config set-context --current --user draconform
# --allow-fake-nodes: preflight lists the DaemonSets that would follow them.
flags=(--kubeconfig "$certify_kc" --allow-fake-nodes)
# An admission policy takes a moment to be enforced after it is created.
for try in 1 2 3 4 5 6; do
	"$DRACONFORM" preflight "${flags[@]}" && break
	[ "$try" = 6 ] && exit 1
	sleep 5
done
rc=0
"$DRACONFORM" certify --claim "$CLAIM" --provider kubeconfig --as-cell "$CELL" "${flags[@]}" \
	--driver-profile "$PROFILE" --product "$PRODUCT" --out "$OUT/run" --bundle "$OUT/bundle" || rc=$?
if [ -d "$OUT/bundle" ]; then
	"$DRACONFORM" verify-bundle "$OUT/bundle" || { v=$?; [ "$rc" != 0 ] || rc=$v; }
fi

if [ "$SONOBUOY" = 1 ] && [ -d "$OUT/bundle" ]; then
	say "6/6: the same claim under Sonobuoy (tools/certify/example-sonobuoy.sh)"
	# (CERTIFY_BUNDLE first: an assignment sees the ones before it.)
	CERTIFY_BUNDLE=$OUT/bundle OUT=$OUT/sonobuoy CLUSTER=$CLUSTER DRACONFORM=$DRACONFORM PROFILE=$PROFILE PRODUCT=$PRODUCT \
		CLAIM=$CLAIM CELL=$CELL tools/certify/example-sonobuoy.sh || { v=$?; [ "$rc" != 0 ] || rc=$v; }
fi
exit "$rc"
