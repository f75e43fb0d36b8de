# draconform: conformance suite for KEP-6406 (DRA extended resource capacity).
# `make conformance` runs the suites on embedded control planes: real
# Kubernetes v1.37.2, and a prototype of KEP-6406 built from its sources
# (both built from the Go module proxy on first use, ~25 min cold on 2 cores);
# `make test` runs the unit tests and the suite itself under go test.

GO        ?= go
ARGS      ?=
RUNS      ?= 20
# The cells gate-matrix-kep runs; the kind provider holds three clusters at most.
KEP_CELLS ?= capacity-on,capacity-apiserver-off,capacity-scheduler-off
# The version a report or bundle records: go run stamps no VCS information.
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
# Every Go build here compiles alike (tools/build/k8sbuild/recipe.go): draconform,
# its tests and vet, and the Kubernetes builds it starts share the packages
# they have in common in the build cache instead of compiling them twice.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath '-gcflags=all=-dwarf=false -c=1')
export CGO_ENABLED := 0
# kind, docker and draconform reach draconform's own Docker engine through
# its socket (tools/host/engine), unless DOCKER_HOST names another engine:
# the person's, used only when they say so.
DOCKER_HOST ?= unix:///run/draconform/docker.sock
export DOCKER_HOST
DRACONFORM = $(GO) run -ldflags "-X github.com/draconform/draconform/tools/cli.version=$(VERSION)" ./tools/cmd/draconform

.PHONY: help certify-example bench bench-cold bench-scheduler-cost conformance test browser node-deps unit lint fuzz binaries schema docs cleanup mutation flake-check gate-matrix gate-matrix-kep merge-matrix node-image node-image-deps docker-check docker-engine docker-engine-down host-check

# On a machine that has not built them, the modules of the Kubernetes
# binaries and of the node's container runtime (about 1.2 GB) download while
# draconform compiles, instead of after it, when both cores would wait on the
# network (make bench-cold). Only for the embedded providers (ARGS names no
# --provider), each set only while its binaries are not in the default cache;
# TestMakefileFetchesForTheDefaultCache checks these paths.
K8S_BINARIES  = .cache/k8s/v1.37.2/bin/kubelet
NODE_BINARIES = .cache/k8s/node-containerd-v2.4.2-seccomp/bin/containerd
define fetch_modules_ahead
	@case "$(ARGS)" in *--provider*) exit 0;; esac; \
	for m in tools/build/k8sbin:$(K8S_BINARIES) tools/build/nodebin:$(NODE_BINARIES); do \
		[ -e "$${m#*:}" ] && continue; \
		echo "downloading the modules of $${m%%:*} in the background while draconform compiles"; \
		(cd "$${m%%:*}" && GOWORK=off $(GO) mod download >/dev/null 2>&1 &); \
	done
endef

## conformance: run every suite and cell on v1.37.2 and the prototype (ARGS="--provider kubeconfig" for any cluster)
conformance: node-deps
	$(fetch_modules_ahead)
	$(DRACONFORM) run --golden docs/golden-outcomes.json $(ARGS)

## test: lint, unit tests, then the suite itself on the embedded control plane
test: lint binaries browser node-deps
	DRACONFORM_BROWSER_REQUIRED=$(BROWSER_REQUIRED) $(GO) test -timeout 40m ./...

# The browser test is required where make installs the browser (CI, or
# INSTALL_BROWSER=1) or finds it; elsewhere it skips, and browser says why.
BROWSER_REQUIRED = $(if $(CI)$(INSTALL_BROWSER)$(shell command -v chromium-headless-shell),1,)

## browser: Debian's headless Chromium, which renders report.html in its test: installed (apt-get, without recommended packages) only in CI or with INSTALL_BROWSER=1; elsewhere make says how to install it and the test skips
browser:
	@if command -v chromium-headless-shell >/dev/null; then :; \
	elif [ -n "$(CI)$(INSTALL_BROWSER)" ]; then echo "installing chromium-headless-shell (apt-get, --no-install-recommends) to render report.html in its test"; apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium-headless-shell; \
	else echo "make: no headless Chromium here, so the test that renders report.html skips; to run it: apt-get install --no-install-recommends chromium-headless-shell, or make test INSTALL_BROWSER=1"; fi

## node-deps: what building the node's runtime needs beyond Go and gcc: libseccomp's headers (libseccomp-dev, found with pkg-config), since runc is built with seccomp so that containers keep containerd's default profile; installed (apt-get) where missing when run as root, else make says how and the node's build refuses, naming them
node-deps:
	@if command -v pkg-config >/dev/null && pkg-config --exists libseccomp; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "installing libseccomp-dev and pkg-config (apt-get) for the node's runc, built with seccomp"; apt-get update -qq && apt-get install -y -qq libseccomp-dev pkg-config; \
	else echo "make: no libseccomp headers here; the embedded node's runc is built with seccomp and needs them: as root, apt-get install libseccomp-dev pkg-config (or make node-deps)"; fi

## host-check: the kubelet cells of make conformance, and a run of them hung up on (SIGHUP), each between two snapshots of this machine (kernel settings, mounts, cgroups, network links, firewall rules, Docker, file names under /tmp, /var/lib, /run and the folders a kubelet, containerd or CNI writes by default, each folder there or not): equal, or each difference removed by cleanup --nodes; as root, with nothing else running
# Not in make test: go test ./... runs packages side by side, and their
# nodes and control planes would show in the snapshots.
host-check: node-deps
	$(GO) build -ldflags "-X github.com/draconform/draconform/tools/cli.version=$(VERSION)" -o _output/host-check/draconform ./tools/cmd/draconform
	DRACONFORM_HOST_CHECK=$(CURDIR)/_output/host-check/draconform $(GO) test -count=1 -timeout 65m -v -run '^(TestKubeletCellsLeaveTheHostAsFound|TestARunKilledByHangupLeavesTheHostAsFound|TestARunWhoseParentIsKilledLeavesTheHostAsFound)$$' ./tools/host/snapshot

## unit: the tests that need no control plane
unit:
	$(GO) test -short ./...

## lint: formatting, vet, the YAML specs, and the checked-in schema
lint:
	@out=$$(gofmt -l tools steps suites fixtures drivers); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(DRACONFORM) lint
	@$(DRACONFORM) schema | diff -u docs/schema.json - || (echo "docs/schema.json is stale: run make schema"; exit 1)
	$(DRACONFORM) docs --check
	$(DRACONFORM) kind-configs --check

## fuzz: fuzz every YAML loader (suites, fixtures, products, driver profiles, the test driver's config) and the run-time expansion of a suite's variables for FUZZTIME each, one after another (FUZZFLAGS="-parallel 1" on a busy machine); a crash is written to the package's testdata/fuzz
FUZZTIME  ?= 30s
FUZZFLAGS ?=
# Before go1.27.3, Go's fuzz coordinator can fail a target that found nothing
# with a bare "context deadline exceeded" as -fuzztime ends (go.dev/issue/75804:
# it compares the deadline's error with the workers' context before that one is
# cancelled; CI hit it on FuzzLoadFixture). An older Go fuzzes on go1.27.3,
# which the go command fetches from the module proxy (76 MB); the rest of the
# project keeps the machine's Go.
FUZZ_GO   = go1.27.3
FUZZ_ENV ?= $(shell v=$$($(GO) env GOVERSION); [ "$$(printf '%s\n' $(FUZZ_GO) "$$v" | sort -V | head -n1)" = $(FUZZ_GO) ] || echo GOTOOLCHAIN=$(FUZZ_GO))
# go test minimizes each new input for up to 60s by default, which would eat
# a short budget whole.
FUZZ      = $(FUZZ_ENV) $(GO) test -run '^$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $(FUZZFLAGS)
fuzz:
	@echo "fuzzing with $$($(FUZZ_ENV) $(GO) env GOVERSION)"
	$(FUZZ) -fuzz '^FuzzLoadSuite$$' ./tools/lang/loader
	$(FUZZ) -fuzz '^FuzzLoadFixture$$' ./tools/lang/loader
	$(FUZZ) -fuzz '^FuzzLoadProduct$$' ./tools/lang/loader
	$(FUZZ) -fuzz '^FuzzLoadProfile$$' ./tools/lang/loader
	$(FUZZ) -fuzz '^FuzzExpandSuite$$' ./tools/lang/loader
	$(FUZZ) -fuzz '^FuzzParse$$' ./drivers/config

## gate-matrix: every cell on kind clusters in Docker, one reused while free, with the test driver installed, compared with the golden outcomes (ARGS go to draconform run); sets up its engine and builds its node image offline first
gate-matrix: docker-engine node-image-deps
	$(DRACONFORM) run --provider kind --kind-image "$$($(DRACONFORM) node-image)" --golden docs/golden-outcomes.json $(ARGS)

## gate-matrix-kep: the KEP cells (KEP_CELLS) on kind, with the prototype's statically linked kube-apiserver and kube-scheduler in the nodes, compared with the golden outcomes recorded as kind-kep
gate-matrix-kep: docker-engine node-image-deps
	$(DRACONFORM) binaries --provider prototype-static
	$(DRACONFORM) run --provider kind --kind-image "$$($(DRACONFORM) node-image)" --kind-kep-bin-dir "$$($(GO) run ./tools/build/prototype build -static)" --cells $(KEP_CELLS) --golden docs/golden-outcomes.json --golden-as kind=kind-kep $(ARGS)

## merge-matrix: the CI merge job: join the shard folders (holding shard.json) found under DIRS, e.g. the jobs' downloaded artifacts, into one run in MERGED (default _output/merged), compared with the golden outcomes; fails on a missing, overlapping or foreign shard, a failed case, a golden difference, or no shard found
MERGED ?= _output/merged
merge-matrix:
	@dirs=$$(find $(DIRS) -name shard.json -printf '%h\n' | sort); \
	if [ -z "$$dirs" ]; then echo "make merge-matrix: no shard folder (shard.json) under $(DIRS): no job wrote its share"; exit 1; fi; \
	echo "make merge-matrix: merging" $$dirs; \
	$(DRACONFORM) merge --out $(MERGED) --golden docs/golden-outcomes.json $$dirs

## node-image: the kind node image the gate matrix runs: kind's published one where its registry serves it, else one built (or found) offline from Debian packages and Go modules (tools/host/nodeimage; draconform node-image --offline always builds)
node-image: docker-engine node-image-deps
	$(DRACONFORM) node-image

# debootstrap makes the node image's Debian rootfs, and checks its packages
# with gpgv against Debian's archive keyring (tools/host/nodeimage refuses to
# run it without the keyring); its runc is the embedded node's, built with
# seccomp (node-deps).
node-image-deps: node-deps
	@command -v debootstrap >/dev/null && command -v gpgv >/dev/null && test -f /usr/share/keyrings/debian-archive-keyring.gpg || { echo "installing debootstrap, gpgv and debian-archive-keyring (apt-get) for the node image's rootfs"; apt-get update -qq && apt-get install -y -qq debootstrap gpgv debian-archive-keyring; }

docker-check:
	@out=$$(docker info --format '{{.ServerVersion}}' 2>&1) || { \
	  echo "make gate-matrix needs a Docker engine for its kind clusters, and docker info failed: $$(echo "$$out" | tail -n 1)"; \
	  echo "make docker-engine installs and starts one (as root, on Debian); the embedded default, make conformance, runs without Docker."; \
	  exit 1; }

## docker-engine: a Docker engine that runs kind's privileged nodes: draconform's own (docker.io installed where missing, its own data root and socket, a capability-dropping runtime only where privileged containers fail), or the one DOCKER_HOST names
docker-engine:
	$(DRACONFORM) engine up --install

## docker-engine-down: stop the engine docker-engine started and remove what it made, its data root (and node image) included (any other engine is left alone)
docker-engine-down:
	$(DRACONFORM) engine down

## binaries: build (or reuse) the Kubernetes binaries: vanilla v1.37.2 and the KEP-6406 prototype
binaries:
	$(DRACONFORM) binaries

## schema: regenerate the JSON Schema editors use for suite files
schema:
	$(DRACONFORM) schema > docs/schema.json

## docs: regenerate docs/traceability.md and docs/register.md from the specs
docs:
	$(DRACONFORM) docs

## mutation: run the suite against every mutant (MUTANTS=a,b for some); updates docs/mutation.json and docs/mutation.md's table
MUTANTS   ?=
mutation: node-deps
	$(DRACONFORM) mutation --mutants "$(MUTANTS)" --results docs/mutation.json --table docs/mutation.md

## flake-check: RUNS (default 20) full runs on v1.37.2 and the prototype, each compared with the golden outcomes; writes docs/flake-check.md
flake-check: node-deps
	$(DRACONFORM) flake-check --runs $(RUNS) --summary docs/flake-check.md $(ARGS)

## bench: the whole matrix BENCH_RUNS times (default 5) with the binaries built, each run compared with the golden outcomes, then the speed ratios side by side (case against the scheduler, BENCH_PAIRS cell starts against a bare API server, certify on a running cluster against BENCH_TESTS e2e-framework tests); writes docs/bench.md and docs/bench.json (ARGS go to draconform run, e.g. ARGS="--parallel 3")
BENCH_RUNS ?= 5
BENCH_PAIRS ?= 3
BENCH_TESTS ?= 5
bench: binaries node-deps
	$(DRACONFORM) bench --runs $(BENCH_RUNS) --start-pairs $(BENCH_PAIRS) --vendor-tests $(BENCH_TESTS) -- $(ARGS)

## bench-cold: a newcomer's first make conformance: a clean clone of the committed HEAD, empty Go and binary caches, CPU use over time; updates docs/bench.md
bench-cold:
	$(DRACONFORM) bench --cold

## bench-scheduler-cost: what extendedResourceCapacityRequests costs the scheduler: one prototype cluster (capacity-on), pods of a class with the field and without it in alternating batches, side by side; updates docs/bench.md (ARGS: e.g. --cost-pods 40)
bench-scheduler-cost: binaries
	$(DRACONFORM) bench --scheduler-cost $(ARGS)

# `make` alone lists the targets, as `draconform` alone prints its help.
.DEFAULT_GOAL := help

## help: list the targets and what each does (from their ## comments), wrapped at 100 columns
help:
	@awk '/^## [a-z-]+: / { name = $$2; sub(/:$$/, "", name); gsub(/\$$\$$/, "$$"); n = split(substr($$0, length($$2) + 5), w, " "); \
		out = sprintf("  %-18s", name); col = length(out); \
		for (i = 1; i <= n; i++) { if (col + 1 + length(w[i]) > 100 && col > 20) { print out; out = sprintf("%20s", ""); col = 20 } \
			out = out " " w[i]; col += 1 + length(w[i]) } \
		print out }' $(firstword $(MAKEFILE_LIST))

## certify-example: self-certify the Kubernetes SIG's example DRA driver, a driver nobody here wrote: up --node (prototype, capacity-on), its chart deployed, certify kep6406-gates-on with suites/profiles/dra-example-driver.yaml, verify-bundle, all stopped; bundle in _output/certify-example/bundle (ARGS go to draconform up: ARGS="--provider local" for vanilla v1.37.2)
certify-example: node-deps
	tools/certify/example.sh $(ARGS)

## cleanup: delete draconform's leftovers from the cluster of $$KUBECONFIG
cleanup:
	$(DRACONFORM) cleanup $(ARGS)

## certify-example-kind: a vendor's day on plain kind: a node image with KEP-6406 (draconform node-image --kep), kind create cluster with kind-configs/capacity-on-kep.yaml, the example driver's image loaded and its unmodified chart installed with helm, preflight, certify kep6406-gates-on, verify-bundle, the same claim under Sonobuoy; then the cluster deleted (and the engine, if it started one). IMAGE=vanilla: the release's node image, NOT CONFORMANT. kind, helm and sonobuoy are built where missing (draconform clis)
certify-example-kind: node-image-deps
	IMAGE="$(IMAGE)" SONOBUOY="$(SONOBUOY)" tools/certify/example-kind.sh
