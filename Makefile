# macrokit-go developer targets. `make test` is the command CI runs.
GO      ?= go
PKGS    ?= ./...
BIN     ?= bin

.PHONY: all build test test-short bench lint fmt demo clean

all: build

## build: compile the macrokit binary into bin/
build:
	$(GO) build -o $(BIN)/macrokit ./cmd/macrokit

## test: the full suite (needs Chromium: /usr/bin/chromium or $$MACROKIT_BROWSER)
test: lint
	$(GO) test -count=1 -timeout 15m $(PKGS)

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

## bench: engine benchmarks against a Playwright baseline, printed as ratios
bench:
	@test -d bench/playwright/node_modules || (cd bench/playwright && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
	$(GO) run ./bench/compare

## demo: the embedded demo site, the reference macros in headless Chromium, and a caught fake success
demo:
	$(GO) run ./cmd/macrokit demo run

clean:
	rm -rf $(BIN)
