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

.PHONY: build test tools unit fuzz lint fmt-check vet staticcheck cross reproducible release bench demo clean conformance

build:
	$(GO) build -o $(BIN) ./cmd/skillpm

## test: everything CI runs, after installing the tools the tests use
## (the integration build: every test against the real parts).
test: tools
	$(MAKE) lint cross reproducible unit fuzz

## tools: the pinned registry, oras, cosign, staticcheck and chromium (scripts/test-tools.sh).
tools:
	@bash scripts/test-tools.sh

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(TEST_TAGS) ./...

staticcheck: tools
	$(STATICCHECK) -tags $(TEST_TAGS) ./...

# The test processes share one compiled copy of the audit's parsers
# (pkg/audit/internal/treesitter): compiling takes ~10 s under -race.
# -tags integration runs the tests against the real parts `tools`
# installs (distribution registry, oras, cosign, chromium); a plain
# `go test ./...` runs the rest with an in-process registry.
unit:
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	SKILLPM_TREESITTER_CACHE=$$cache $(GO) test -race -count=1 -tags $(TEST_TAGS) ./...

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
	  echo "cross vet $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet -tags $(TEST_TAGS) ./...; \
	  echo "cross test -c $$t"; for p in $(CROSS_TESTPKGS); do GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) test -c -o /dev/null $$p; done; \
	done

## reproducible: two release builds of one target are byte-identical (cheap; `make release` twice is the full check).
reproducible:
	@bash scripts/release.sh check

## release: static binaries for linux, darwin, windows x amd64, arm64, SBOM, SHA256SUMS and its signature in bin/release.
release:
	@bash scripts/release.sh

bench:
	@bash scripts/bench.sh

## conformance: install pinned Claude Code, Codex, OpenCode, Gemini CLI, Amp,
## Copilot and Qwen Code from npm into a temporary prefix and check that each
## lists the skills skillpm installs, updates and removes for it.
conformance:
	@bash scripts/conformance.sh

demo: build
	@bash scripts/demo.sh

clean:
	rm -rf bin
