#!/usr/bin/env bash
# tools/certify/example.sh (make certify-example): self-certification of a DRA driver nobody here wrote,
# the Kubernetes SIG's example driver, with the commands a vendor runs:
#   1. draconform up --node           a cluster with KEP-6406's gates and a kubelet node
#   2. draconform example-driver      the driver deployed as its chart renders it
#   3. draconform certify             kep6406-gates-on through the kubeconfig provider
#   4. draconform verify-bundle       the bundle, checked as a reviewer would
# then it stops both (the driver removes all it created, up stops the node).
# Its exit code is certify's, or verify-bundle's where certify passed.
#
# Arguments go to `draconform up` (default --provider prototype):
#   make certify-example ARGS="--provider local"    vanilla v1.37.2: NOT CONFORMANT
# Environment: DRACONFORM (the binary; default: built into OUT), OUT
# (default _output/certify-example), PROFILE and PRODUCT (the example's).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-_output/certify-example}
PROFILE=${PROFILE:-suites/profiles/dra-example-driver.yaml}
PRODUCT=${PRODUCT:-suites/profiles/dra-example-driver.product.yaml}
CLAIM=kep6406-gates-on
CELL=capacity-on

say() { printf 'certify-example: %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
	say "needs root, as draconform up --node does (a kubelet and containerd on this machine)"
	exit 2
fi
# Only what this script writes is removed: its own folders and logs under
# OUT. A log left from an earlier run would hold the line wait_for waits for
# before tee empties it: the next step would start at once (seen: certify
# began before the example driver published its devices).
for d in up driver run bundle up.log driver.log; do rm -rf "${OUT:?}/$d"; done
mkdir -p "$OUT"

if [ -z "${DRACONFORM:-}" ]; then
	say "building draconform into $OUT/draconform"
	go build -ldflags "-X github.com/draconform/draconform/tools/cli.version=$(git describe --always --dirty 2>/dev/null || echo devel)" \
		-o "$OUT/draconform" ./tools/cmd/draconform
	DRACONFORM=$OUT/draconform
fi

up_pid= driver_pid=
# stop asks each background command to stop as Ctrl-C would, newest first,
# and waits for it: the driver removes what it created while the cluster
# still runs.
stop() {
	local rc=$?
	trap - EXIT INT TERM
	# Each prints "interrupt: cleaning up" as it would for Ctrl-C: say
	# first that this is the planned stop, not a failure.
	if [ -n "$driver_pid$up_pid" ]; then
		say "stopping the example driver and the node as planned (each answers as it would Ctrl-C: \"interrupt: cleaning up\")"
	fi
	for pid in $driver_pid $up_pid; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -INT "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || { [ "$rc" != 0 ] || rc=1; }
		fi
	done
	exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT TERM

# wait_for FILE TEXT PID: until FILE holds TEXT, while PID runs.
wait_for() {
	until grep -q -- "$2" "$1" 2>/dev/null; do
		if ! kill -0 "$3" 2>/dev/null; then
			say "$(basename "$1" .log) ended before it was ready; its log: $1"
			exit 1
		fi
		sleep 1
	done
}

say "1/4: draconform up --cell $CELL --node ${*:---provider prototype} (builds what is missing; log $OUT/up.log)"
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--provider prototype)
"$DRACONFORM" up --cell "$CELL" --node --out "$OUT/up" "${args[@]}" > >(tee "$OUT/up.log") 2>&1 &
up_pid=$!
# Binaries without KEP-6406 (vanilla v1.37.2) have no gate to turn on: their
# cluster starts with its defaults and is still declared capacity-on below,
# as a vendor claiming the KEP on a cluster without it would.
until grep -q -- "is up; logs in" "$OUT/up.log" 2>/dev/null || ! kill -0 "$up_pid" 2>/dev/null; do sleep 1; done
# up's output reaches the log through tee, which may still be writing its
# last lines when up has ended: read them after tee has.
if ! kill -0 "$up_pid" 2>/dev/null; then
	wait "$up_pid" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "has no alpha or beta feature gate DRAExtendedResourceCapacity" "$OUT/up.log" && break
		sleep 0.5
	done
fi
if ! kill -0 "$up_pid" 2>/dev/null && grep -q "has no alpha or beta feature gate DRAExtendedResourceCapacity" "$OUT/up.log"; then
	say "these binaries have no DRAExtendedResourceCapacity gate: starting them with their defaults, still certified as $CELL"
	rm -rf "${OUT:?}/up" "${OUT:?}/up.log"
	"$DRACONFORM" up --cell defaults --node --out "$OUT/up" "${args[@]}" > >(tee "$OUT/up.log") 2>&1 &
	up_pid=$!
fi
wait_for "$OUT/up.log" "is up; logs in" "$up_pid"
# up writes its kubeconfig, which holds the admin token, to a private
# folder of its own, and prints where.
kubeconfig=$(sed -n 's/^  export KUBECONFIG=//p' "$OUT/up.log" | tail -n 1)

say "2/4: draconform example-driver (log $OUT/driver.log)"
"$DRACONFORM" example-driver --kubeconfig "$kubeconfig" --out "$OUT/driver" > >(tee "$OUT/driver.log") 2>&1 &
driver_pid=$!
wait_for "$OUT/driver.log" "the example driver runs on node" "$driver_pid"

say "3/4: draconform certify --claim $CLAIM --as-cell $CELL --allow-fake-nodes --allow-unconfined --driver-profile $PROFILE"
# --allow-fake-nodes: the cluster is the one up started here, and the only
# DaemonSets on it are the two drivers', pinned to the kubelet node.
# --allow-unconfined: up's cluster is this script's own, reached with its
# admin credentials; no admission policy confines them (the bundle says so).
rc=0
"$DRACONFORM" certify --claim "$CLAIM" --provider kubeconfig --kubeconfig "$kubeconfig" --as-cell "$CELL" --allow-fake-nodes --allow-unconfined \
	--driver-profile "$PROFILE" --product "$PRODUCT" --out "$OUT/run" --bundle "$OUT/bundle" || rc=$?
if [ -d "$OUT/bundle" ]; then
	say "4/4: draconform verify-bundle $OUT/bundle"
	"$DRACONFORM" verify-bundle "$OUT/bundle" || { v=$?; [ "$rc" != 0 ] || rc=$v; }
else
	say "4/4: no bundle to verify: certify wrote none (exit $rc)"
fi
exit "$rc"
