// Command soak is `make soak`: it starts the built `macrokit serve --http`
// (loopback only, the embedded demo site, the scripted demo model), runs
// concurrent clients against it for a set time — macro calls, routed
// /v1/ask turns, listings — and prints, every interval, requests, errors by
// kind, p50/p95 latency and the server's goroutines, RSS, open descriptors
// and Chromium processes. It exits 1 when any of those grew between the
// first and the last third of the run beyond a tolerance (Growth), when
// the server did not stop cleanly, or when a Chromium process outlived it.
//
//	go run ./internal/soak --bin bin/macrokit --duration 5m --clients 20
//
// It is a developer tool, not part of CI; main is its only os.Exit.
package main
