# macrokit-go developer targets. `make test` is the command CI runs.
GO      ?= go
PKGS    ?= ./...
BIN     ?= bin

.PHONY: all build test test-short bench bench-router lint fmt demo clean chromium fuzz soak

all: build

## build: compile the macrokit binary into bin/: static (CGO_ENABLED=0), so it runs on any Linux without a libc match
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/macrokit ./cmd/macrokit

## chromium: make sure a local Chromium exists (installs Debian's package as root when missing; never downloads a browser build)
chromium:
	@if [ -n "$$MACROKIT_BROWSER" ] || [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's chromium (apt-get install -y chromium)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "Chromium not found: install it (apt-get install -y chromium) or set MACROKIT_BROWSER"; exit 1; fi

## test: the full suite (needs Chromium: /usr/bin/chromium or $$MACROKIT_BROWSER)
test: chromium lint
	$(GO) test -count=1 -timeout 25m $(PKGS)

## test-short: the suite without the slower browser cases
test-short:
	$(GO) test -short -count=1 $(PKGS)

## lint: gofmt and go vet must be clean
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needs to run on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

## fmt: rewrite files with gofmt
fmt:
	gofmt -w $$(git ls-files '*.go')

## bench-router: catalog retrieval and router overhead, without a model
bench-router:
	$(GO) test ./runtime/route/catalog ./runtime/route -run '^$$' -bench 'Catalog|RouterOverhead' -benchmem

## bench: engine benchmarks and the 50-row batch throughput against a Playwright baseline, printed as ratios (bench/README.md)
bench:
	@test -d bench/playwright/node_modules || (cd bench/playwright && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
	$(GO) run ./bench/compare

## fuzz: every fuzz target in the repo, one at a time, FUZZTIME each (default 60s; not in CI): .ci/fuzz
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash .ci/fuzz

## soak: the built serve --http (loopback, demo site, scripted model) under 20 concurrent clients for SOAK_DURATION;
## reports every 30 s, fails if goroutines/RSS/fds/Chromium grow (not in CI)
SOAK_DURATION ?= 5m
SOAK_CLIENTS  ?= 20
soak: build chromium
	$(GO) run ./internal/soak --bin $(BIN)/macrokit --duration $(SOAK_DURATION) --clients $(SOAK_CLIENTS)

## demo: the embedded demo site, the reference macros in headless Chromium, and a caught fake success
demo: chromium
	$(GO) run ./cmd/macrokit demo run

clean:
	rm -rf $(BIN)
