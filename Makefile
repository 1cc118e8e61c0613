# skillpm: build, test, bench, demo, lint.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local
export GOFLAGS := -buildvcs=false
BIN := bin/skillpm
STATICCHECK_VERSION := v0.8.2
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
# A count, not a duration: a duration races Go 1.26's fuzz coordinator at the deadline
# (go.dev/issue/75804) and fails with "context deadline exceeded" on a loaded machine.
FUZZTIME ?= 1000x

.PHONY: build test unit fuzz lint fmt-check vet staticcheck bench demo clean conformance

build:
	$(GO) build -o $(BIN) ./cmd/skillpm

## test: everything CI runs.
test: lint unit fuzz

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) ./...

unit:
	$(GO) test -race -count=1 ./...

## fuzz: run every Fuzz target briefly; the seed corpora live in each package's testdata/fuzz.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg 2>&1) || { echo "$$out"; exit 1; }; \
	  done; \
	done

bench:
	@bash scripts/bench.sh

## conformance: install pinned Claude Code, Codex and OpenCode from npm into a
## temporary prefix and check that each lists the skills skillpm installs for it.
conformance:
	@bash scripts/conformance.sh

demo: build
	@bash scripts/demo.sh

clean:
	rm -rf bin
