// Package server serves the benchmark pages and the slow API they call, so
// that macrokit's engine and the Playwright baseline drive the very same
// pages from the very same server.
//
// Routes:
//
//	/<page>.html     the pages in bench/pages (click, async, fill, perception)
//	/api/slow?ms=N   sleeps N ms (0..10000, default 100), then answers
//	                 {"ms":N,"seq":"<seq param>"} as JSON
//
// Every answer carries Cache-Control: no-store.
package server
