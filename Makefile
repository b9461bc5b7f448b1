# Partner Commerce API v2: contract, reference server, conformance suite, load tester.
# `make help` lists the targets.

GO       ?= go
TARGET   ?=
PROFILE  ?=
# Extra flags for cmd/conformance and cmd/loadtest, e.g. ARGS="--tags @payments".
ARGS     ?=
REDOCLY  ?= npx --yes @redocly/cli@2.77.0
BENCHTIME ?= 2s

conformance_flags = $(if $(TARGET),--target $(TARGET)) $(if $(PROFILE),--profile $(PROFILE))

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-16s %s\n", $$1, $$2}'

.PHONY: conformance
conformance: ## Run the conformance suite (embedded reference, or TARGET=url PROFILE=file).
	$(GO) run ./cmd/conformance $(conformance_flags) --report-dir reports/conformance $(ARGS)

.PHONY: load
load: ## Run a load test (short demo against the embedded reference, or TARGET=url PROFILE=file).
	$(GO) run ./cmd/loadtest $(conformance_flags) $(ARGS)

.PHONY: run
run: ## Serve the embedded reference data set on 127.0.0.1:8080.
	$(GO) run ./cmd/reference $(ARGS)

.PHONY: test
test: ## Run every test with the race detector (fuzz seeds included).
	$(GO) test -race -count=1 ./...

.PHONY: bench
bench: ## Run the benchmarks (reference server, conformance suite, load tester).
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

.PHONY: fuzz
fuzz: ## Fuzz each target for FUZZTIME (default 30s).
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-30s} $$pkg || exit 1; \
	  done; \
	done

.PHONY: generate
generate: ## Regenerate api/ from openapi.yaml.
	$(GO) generate ./...

.PHONY: check-generate
check-generate: generate ## Fail when regenerating api/ changes anything.
	@git diff --exit-code -- api/ || (echo "api/ is out of sync with openapi.yaml: run make generate and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- api/)" || (git status --porcelain -- api/; echo "untracked generated files" >&2; exit 1)

.PHONY: lint
lint: spec-lint ## Lint Go code (gofmt, go vet, golangci-lint) and openapi.yaml.
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.gen\.go$$'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '\.gen\.go$$'); echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...
	$(GO) tool -modfile=tools/go.mod golangci-lint run ./...

.PHONY: spec-lint
spec-lint: ## Lint openapi.yaml with Redocly CLI (needs npm).
	$(REDOCLY) lint openapi.yaml
