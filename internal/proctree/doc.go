// Package proctree reads Linux's /proc: one process's stat line, and the
// live processes below a pid. The engine's profile sweep, `make soak` and
// the tests that prove no Chromium outlives its owner share it.
//
// Off Linux (no /proc) every process reads as gone and no tree has
// descendants. The package imports only the standard library.
package proctree
