// Command compare measures macrokit's engine against a Playwright baseline on
// the same pages, in the same run, and reports the ratios (see
// bench/README.md).
//
//	go run ./bench/compare [-n 10] [-rounds 3] [-warmup 5] [-format table|json] [-out FILE] [-strict] [-only a,b]
//
// It starts bench/server on loopback, builds the engine test binary once, then
// for each scenario in turn runs our benchmark (-test.bench ^BenchmarkX$ with
// MACROKIT_BENCH_URL pointing at that server) and node
// bench/playwright/bench.mjs --only X against the same server; the sequence
// repeats for -rounds rounds. It prints per scenario: our median,
// Playwright's median, the ratio (median of the per-round ratios), and the
// target. Scenario (b)'s ratio is against a floor (the 100 ms request plus one
// 60 Hz frame) rather than Playwright, whose figure is shown for reference.
// Scenario (e), batch_add_customer_50 (batch.go), is a rate instead: the
// built macrokit binary's `batch add_customer` over 50 rows with
// --concurrency 2 against bench/playwright/batch.mjs doing the same flow
// sequentially, each on a fresh demo site behind its login, one whole run
// per side and round; its ratio is ours / Playwright in rows per minute and
// must be at least 1.8.
//
// Run it from anywhere inside the module. It exits 1 when a side fails to
// run; with -strict also when a scenario is unmeasured or misses its target.
package main
