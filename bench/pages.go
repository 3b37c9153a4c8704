// Package bench holds the benchmark pages shared by macrokit's engine
// benchmarks (engine/bench_test.go) and the Playwright baseline
// (bench/playwright). See bench/README.md.
package bench

import "embed"

// Pages is the pages/ directory: one static HTML page per scenario.
//
//go:embed pages/*.html
var Pages embed.FS
