# skillpm: build, test, bench, demo, lint.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local
export GOFLAGS := -buildvcs=false
BIN := bin/skillpm
# The tools the tests run (scripts/test-tools.sh installs them) live in GOPATH/bin.
export PATH := $(shell $(GO) env GOPATH)/bin:$(PATH)
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
# A count, not a duration: a duration races Go 1.26's fuzz coordinator at the deadline
# (go.dev/issue/75804) and fails with "context deadline exceeded" on a loaded machine.
FUZZTIME ?= 1000x
# The build tag of the tests that need the real parts (internal/registrytest).
TEST_TAGS := integration
# vet and staticcheck read every file: the cosign interop tests' too.
LINT_TAGS := integration,cosign

.PHONY: build test tools interop unit fuzz lint fmt-check vet staticcheck cross reproducible precompile release bench faults demo clean conformance conformance-ci

build:
	$(GO) build -o $(BIN) ./cmd/skillpm

## test: everything CI runs but the cosign interop tests (make interop),
## after installing the tools the tests use (the integration build: every
## test against the real parts). Each stage prints its wall time.
TEST_STAGES := tools lint cross reproducible unit fuzz
test:
	@set -e; for s in $(TEST_STAGES); do bash scripts/stage.sh $$s $(MAKE) --no-print-directory $$s; done

## tools: the pinned registry, oras, staticcheck and chromium (scripts/test-tools.sh core).
tools:
	@bash scripts/test-tools.sh core

## interop: the tests that run the real cosign CLI (cosign verifies what
## skillpm signs and the other way round), after building cosign. cosign is
## the one tool whose build from source takes half an hour on a fresh
## 2-core machine, so make test does not wait for it; CI runs both.
interop:
	@bash scripts/test-tools.sh cosign
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -tags $(TEST_TAGS),cosign -run 'Cosign|TestMirrorBothWays' ./sign ./registry ./cmd/skillpm

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(LINT_TAGS) ./...

staticcheck: tools
	$(STATICCHECK) -tags $(LINT_TAGS) ./...

# The test processes share one compiled copy of the audit's parsers
# (pkg/audit/internal/treesitter): compiling takes ~10 s under -race.
# -tags integration runs the tests against the real parts `tools`
# installs (distribution registry, oras, chromium); a plain
# `go test ./...` runs the rest with an in-process registry.
#
# -race covers every package's tests except cmd/skillpm's scripts
# (SCRIPT_TESTS): each of their ~600 `exec skillpm` is a new process running
# one command, single-threaded apart from the fetches the root, install,
# registry and api packages race-test in-process; under -race the
# scripts took ten minutes of a loaded 2-core machine, without it a few.
# cmd/skillpm's other tests (serve, git sources, exit codes) run with -race.
# The corpus tests (CORPUS_TESTS: Test*Corpus*, the 870 real skills through
# validate, migrate, audit and a GAIA install each) are data volume, not
# concurrency: under -race they cost three times the CPU (about 90 s against
# 30 s) and race nothing the packages' other tests do not, so they run in the
# second, plain pass with the scripts.
#
# TEST_TIMEOUT bounds each test binary; it is sized for a 2-core machine
# running another CPU-bound job beside the tests (go test's default, 10
# minutes, failed there), so it catches a hang, not a slow machine.
TEST_TIMEOUT ?= 45m
SCRIPT_TESTS := ^(TestScripts|TestRegistryScripts|TestOrasScripts)$$
CORPUS_TESTS := ^Test[A-Za-z]*Corpus[A-Za-z]*$$
CORPUS_PKGS = $$(grep -rlE --include='*_test.go' '^func Test[A-Za-z]*Corpus[A-Za-z]*\(' . | xargs -n1 dirname | sort -u)
unit:
	@set -e; cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; export SKILLPM_TREESITTER_CACHE=$$cache; \
	pkgs=$$($(GO) list ./... | grep -v '/cmd/skillpm$$'); \
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -tags $(TEST_TAGS) $$pkgs ./cmd/skillpm -skip '$(SCRIPT_TESTS)|$(CORPUS_TESTS)'; \
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -tags $(TEST_TAGS) -run '$(SCRIPT_TESTS)|$(CORPUS_TESTS)' ./cmd/skillpm $(CORPUS_PKGS)

## fuzz: run every Fuzz target briefly; the seed corpora live in each package's testdata/fuzz.
fuzz:
	@set -e; export SKILLPM_TREESITTER_CACHE=$$(mktemp -d); trap 'rm -rf "$$SKILLPM_TREESITTER_CACHE"' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg 2>&1) || { echo "$$out"; exit 1; }; \
	  done; \
	done

## cross: Windows and macOS, compile only, CGO off as in the release build:
## vet type-checks every package and its tests for windows/amd64 and
## darwin/arm64, and the test binaries of the packages whose behaviour
## depends on the OS (locks, renames, paths) link there. `make release`
## builds every target.
CROSS_TESTPKGS := ./install/ ./pkg/archive/
cross:
	@set -e; export CGO_ENABLED=0; \
	for t in windows/amd64 darwin/arm64; do \
	  echo "cross vet $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet -tags $(LINT_TAGS) ./...; \
	  echo "cross test -c $$t"; for p in $(CROSS_TESTPKGS); do GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) test -c -o /dev/null $$p; done; \
	done

## reproducible: two release builds of one target are byte-identical (cheap; `make release` twice is the full check),
## and the parsers' precompiled code is what a fresh compile gives.
reproducible:
	@bash scripts/release.sh check
	@$(GO) run ./pkg/audit/internal/treesitter/precompile -check

## precompile: write the audit parsers' compiled code for this platform, which
## the binary embeds (after changing a parser module or wazero's version).
precompile:
	$(GO) run ./pkg/audit/internal/treesitter/precompile

## release: static binaries for linux, darwin, windows x amd64, arm64, SBOM, SHA256SUMS and its signature in bin/release.
release:
	@bash scripts/release.sh

bench:
	@bash scripts/bench.sh

## faults: 200 installs and 20 mirrors of a signed graph through the fault-injecting
## proxy at a 10% fault rate: successes, clean failures, worst wall time, and 0
## corrupted roots, locks and caches (each run checked against its receipts and lock).
faults:
	@bash scripts/faults.sh

## conformance: install pinned Claude Code, Codex, OpenCode, Gemini CLI, Amp,
## Copilot and Qwen Code from npm into a temporary prefix and check that each
## lists the skills skillpm installs, updates and removes for it, and loads
## hand-made folders exactly when skillpm installs them for it; then show
## that it fails when a host entry is broken on purpose (a root, a variable,
## a project root, the symlink rule; hosts/conformance_test.go, Codex alone).
conformance:
	@bash scripts/conformance.sh
	$(GO) test -tags conformance -count=1 -timeout $(TEST_TIMEOUT) -run TestConformanceCatchesBrokenEntries ./hosts

## conformance-ci: what .ci/run runs of it, within CI's budget: the six
## CLIs of CONFORMANCE_CI_HOSTS (Qwen Code, whose listing gives names only,
## stays in make conformance) over the scenarios of CONFORMANCE_CI_SCENARIOS
## (default and moved roots, project scope, --link, the lifecycle; the
## relative and literal-~ variables, the lenient loads (hand-made folders
## each host is asked about once more: some 50 s for Gemini CLI, Amp and
## Copilot alone, over CI's budget) and the Codex hooks stay in make
## conformance), and no mutation run.
CONFORMANCE_CI_HOSTS ?= claude codex opencode gemini amp copilot
CONFORMANCE_CI_SCENARIOS ?= default moved project link default4 moved4 lifecycle
conformance-ci:
	@CONFORMANCE_HOSTS="$(CONFORMANCE_CI_HOSTS)" CONFORMANCE_SCENARIOS="$(CONFORMANCE_CI_SCENARIOS)" bash scripts/conformance.sh

demo: build
	@bash scripts/demo.sh

clean:
	rm -rf bin
