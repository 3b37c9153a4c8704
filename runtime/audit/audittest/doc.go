// Package audittest is an in-memory [audit.Sink] for tests: it keeps the
// events and can be told to fail appends of some kinds.
package audittest
