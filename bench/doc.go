// Package bench holds the benchmark pages shared by macrokit's engine
// benchmarks (engine/bench_test.go) and the Playwright baseline
// (bench/playwright). See bench/README.md.
package bench
