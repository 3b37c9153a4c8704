// Package generated holds the macros compiled from ../macros.d by
// `macrokit generate`. Every other file here is generated: edit the specs,
// then run `go generate ./...`. A test in internal/cli fails when these
// files do not match macros.d.
package generated

//go:generate go run ../cmd/macrokit generate --macros ../macros.d --out .
