# Partner Commerce API v2: contract, reference server, conformance suite, load tester.
# `make help` lists the targets.

GO       ?= go
TARGET   ?=
PROFILE  ?=
# STRICT=1 makes `make conformance` count warnings (readings not followed) as failures.
STRICT   ?=
# Extra flags for cmd/conformance and cmd/loadtest, e.g. ARGS="--tags @payments".
ARGS     ?=
REDOCLY  ?= npx --yes @redocly/cli@2.77.0
BENCHTIME ?= 2s
# Duration of `make soak` (the acceptance figure of docs/performance.md is SOAK=10m).
SOAK     ?= 3m

# With TARGET and no PROFILE the reference profile is used, so that a wrong
# target is named by the preflight check rather than by a missing flag.
conformance_flags = $(if $(TARGET),--target $(TARGET) --profile $(or $(PROFILE),profiles/reference.yaml),$(if $(PROFILE),--profile $(PROFILE)))

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-16s %s\n", $$1, $$2}'

# GNU make exits 2 whenever a recipe fails, and `go run` exits 1 whenever the
# program fails, so neither can carry the runner's own exit code (0 pass,
# 1 failed, 2 incomplete/usage/profile/target). The recipe runs the built binary, prints
# its code and meaning, and exits with it; make then exits 0 or 2. CI calls
# bin/conformance directly (`make bin/conformance` builds it) for the exact code.
.PHONY: conformance
conformance: bin/conformance ## One run, every judge: scenarios, generated properties, probe (embedded reference, or TARGET=url PROFILE=file; STRICT=1: warnings fail; ARGS="--judges scenarios" narrows).
	@bin/conformance $(conformance_flags) $(if $(STRICT),--strict) --report-dir reports/conformance $(ARGS); code=$$?; \
	case $$code in \
	  0) ;; \
	  1) echo "conformance exit code 1: a scenario, property or probe case failed (make itself exits 2)" >&2 ;; \
	  2) echo "conformance exit code 2: INCOMPLETE (rules not judged), or a usage, profile or target error (make itself exits 2)" >&2 ;; \
	  *) echo "conformance exit code $$code (make itself exits 2)" >&2 ;; \
	esac; exit $$code

.PHONY: living-docs
living-docs: ## Render features/ as the living documentation for partners, nothing run (reports/docs/living-docs.html; SUMMARY=summary.json overlays a run).
	$(GO) run ./cmd/conformance docs --out reports/docs $(if $(SUMMARY),--summary $(SUMMARY))

.PHONY: fuzz-target
fuzz-target: bin/conformance ## Generated mode: schema-driven and stateful cases (embedded reference, or TARGET=url PROFILE=file; SEED=n EXAMPLES=n).
	@bin/conformance generate $(conformance_flags) $(if $(STRICT),--strict) $(if $(SEED),--seed $(SEED)) $(if $(EXAMPLES),--examples $(EXAMPLES)) --report-dir reports/generated $(ARGS); code=$$?; \
	case $$code in \
	  0) ;; \
	  1) echo "conformance generate exit code 1: a property failed (make itself exits 2)" >&2 ;; \
	  *) echo "conformance generate exit code $$code: usage, profile or target error (make itself exits 2)" >&2 ;; \
	esac; exit $$code

# VERSION names a release (a git tag, v1.2.0); by default git describe's.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
# DIST_TARGETS restricts make dist to some platforms, e.g. DIST_TARGETS=linux/amd64.
DIST_TARGETS ?=

.PHONY: dist
dist: ## Static binaries of conformance, loadtest, reference for linux/darwin/windows, amd64/arm64, in dist/ (GoReleaser's names, checksums file).
	$(GO) run ./cmd/dist --version $(VERSION) --out dist $(if $(DIST_TARGETS),--targets $(DIST_TARGETS))

.PHONY: bin/conformance
bin/conformance: ## Build the conformance runner (run it directly for its exact exit code).
	@$(GO) build -o bin/conformance ./cmd/conformance

.PHONY: load
load: ## Run a load test (short demo against the embedded reference, or TARGET=url PROFILE=file).
	$(GO) run ./cmd/loadtest $(conformance_flags) $(ARGS)

.PHONY: run
run: ## Serve the embedded reference data set on 127.0.0.1:8080.
	$(GO) run ./cmd/reference $(ARGS)

# Browser tests skip without Chromium; each appends "TestName: reason" to
# $$CONFORMANCE_SKIP_LOG, so that the recipe can say how many were skipped
# and why without -v.
.PHONY: test
# SLOWEST_TESTS are the packages whose tests take longest, slowest first:
# go test starts packages in the order named (./... adds the rest, each once),
# and on two cores a slow package started last would run alone at the end.
SLOWEST_TESTS := ./generative ./steps ./loadtest ./cmd/conformance ./reference/httpapi ./steps/report ./cmd/loadtest ./perf ./probe ./reference ./mutation

# SWEEP_PACKAGES hold the sweeps (package internal/sweep): tests that run a
# whole judge against every fault or double of the reference, and those that
# read the whole runs a sweep shares (generative's defaultRun). make test runs
# every test with -race, the sweeps skipped there, then the sweeps without
# -race: they check verdicts, and the race detector makes them six times
# slower.
SWEEP_PACKAGES := ./generative ./steps ./loadtest
# SWEEPS names them (internal/sweep's test holds the list to the code).
SWEEPS := ^(TestEveryFaultFailsTheWholeRun|TestASequenceIsShrunkToItsFewSteps|TestGeneratedModeFindsItsFaults|TestEveryFoundFaultReproduces|TestSequenceReproduces|TestLoadTesterPassesVariantServers|TestEveryJudgePassesVariantServers|TestSuiteDetectsFaults|TestEveryFault|TestGeneratedModeJudgesByTheDocumentLevelRules|TestMixedPaymentsOutOfRangeFail|TestShapeFaultsAreReportedAtTheirField|TestSuiteMissesGeneratedFaults)$$

test: ## Run every test with the race detector (fuzz seeds included), then the sweeps of every fault and double without it; says which browser tests were skipped and why.
	@log=$$(mktemp); CONFORMANCE_SKIP_LOG=$$log $(GO) test -race -count=1 $(SLOWEST_TESTS) ./... && \
	echo "the sweeps of every fault and double, without -race:" && \
	CONFORMANCE_SKIP_LOG=/dev/null $(GO) test -count=1 -run '$(SWEEPS)' $(SWEEP_PACKAGES); code=$$?; \
	if [ -s $$log ]; then \
	  echo "$$(wc -l < $$log | tr -d ' ') browser tests skipped: $$(cut -d: -f1 $$log | sort | paste -sd, - | sed 's/,/, /g')"; \
	  echo "  why: $$(cut -d: -f2- $$log | sort -u | head -1 | sed 's/^ //')"; \
	else echo "no browser test skipped"; fi; \
	rm -f $$log; exit $$code

# Not part of make test: it runs for about a minute so that the graph
# shows something, and rewrites a file under docs/.
.PHONY: screenshot-prometheus
screenshot-prometheus: ## Retake docs/prometheus.png: a run scraped by a real Prometheus, its /graph page in headless Chromium (needs prometheus and chromium).
	CONFORMANCE_SCREENSHOTS=1 $(GO) test -count=1 -run '^TestPrometheusScrapesALoadRun$$' -v ./cmd/loadtest/

# Not part of make test: it builds and judges every mutant of the reference
# that docs/mutation-ledger.jsonl holds no verdict of under today's file and
# suite (all 1,697 of them: some 3 to 5 hours on 2 cores, 6.6 s to 10 s a
# mutant), adds each verdict to the ledger as it comes, and rewrites
# docs/mutation.md. It resumes where a run stopped, so it may run a piece at
# a time: MUTATION_ARGS="--for 1h" or "--limit N".
# With --size or --only in MUTATION_ARGS it runs a sample instead (a quick
# look, about 20 minutes for 150 viable mutants): reports/mutation/sample.md.
.PHONY: mutation
mutation: bin/conformance ## Judge every mutant of the reference not judged yet under today's source and suite, resuming docs/mutation-ledger.jsonl; write docs/mutation.md (MUTATION_ARGS="--for 1h" or "--limit N": a piece; "--seed N --size N": a sample).
	@$(GO) build -o bin/mutation ./cmd/mutation && bin/mutation run $(if $(filter --size% --only%,$(MUTATION_ARGS)),,--all) $(MUTATION_ARGS)

.PHONY: bench
bench: ## Run the benchmarks (reference server, conformance suite, load tester).
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

.PHONY: perf
perf: ## Ratios against baselines on loopback in alternating rounds (a few minutes, bounded): reference vs static handler, reference --state vs in memory at 16 and 128 connections (and bytes on disk per payment), memory and rate at 1M payments, load tester vs vegeta CLI (rate, CPU, memory growth per request).
	@$(GO) build -o bin/reference ./cmd/reference && $(GO) build -o bin/loadtest ./cmd/loadtest && $(GO) build -o bin/perf ./cmd/perf && bin/perf --reference bin/reference --loadtest bin/loadtest $(ARGS)

.PHONY: soak
soak: ## The load tester's resident memory over a long run at 5,000/s (bounded: SOAK, default 3m): prints it as it runs and the slope extrapolated to an hour.
	@$(GO) build -o bin/loadtest ./cmd/loadtest && $(GO) build -o bin/perf ./cmd/perf && bin/perf --only soak --loadtest bin/loadtest --soak-duration $(SOAK) $(ARGS)

.PHONY: chaos
chaos: ## About 30 s on loopback: the reference SIGKILLed every 4 s under retried payments, with --state (nothing lost or doubled) and without (the lost writes named); and with --state on a 256 KiB disk a filler takes and frees (a tmpfs when it may mount one); reports in reports/chaos/.
	$(GO) test -count=1 -parallel 4 -run '^TestChaos$$' -v ./cmd/loadtest/ -chaos -chaos-out $(CURDIR)/reports/chaos

.PHONY: hardening
hardening: ## Loopback attack on a built reference server: malformed requests, header flood (RSS), 30,000 concurrent payments.
	$(GO) test -count=1 -run '^TestHardeningAttack$$' -v ./reference/httpapi/ -hardening

.PHONY: fuzz
fuzz: ## Fuzz each target for FUZZTIME (default 30s).
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-30s} $$pkg || exit 1; \
	  done; \
	done

.PHONY: generate
generate: ## Regenerate api/ from openapi.yaml and docs/conformance-readings.md from internal/contract/readings.go.
	$(GO) generate ./...

.PHONY: check-generate
check-generate: generate ## Fail when regenerating api/ or docs/conformance-readings.md changes anything.
	@git diff --exit-code -- api/ || (echo "api/ is out of sync with openapi.yaml: run make generate and commit" >&2; exit 1)
	@git diff --exit-code -- docs/conformance-readings.md || (echo "docs/conformance-readings.md is out of sync with internal/contract/readings.go: run make generate and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- api/)" || (git status --porcelain -- api/; echo "untracked generated files" >&2; exit 1)

.PHONY: lint
lint: lint-go spec-lint ## Lint Go code and openapi.yaml (lint-go + spec-lint).

.PHONY: lint-go
lint-go: ## Lint Go code only (gofmt, go vet, golangci-lint); needs no npm.
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.gen\.go$$'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '\.gen\.go$$'); echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...
	$(GO) tool -modfile=tools/go.mod golangci-lint run ./...

.PHONY: spec-lint
spec-lint: ## Lint openapi.yaml with Redocly CLI (needs npm).
	$(REDOCLY) lint openapi.yaml
