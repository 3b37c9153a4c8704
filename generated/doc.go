// Package generated holds the macros compiled from ../macros.d by
// `macrokit generate`, and the registration of the GitHub primitives of
// ../internal/ghprim (generated.Primitives). Every other file here is
// generated: edit the specs or the primitives, then run `go generate ./...`
// (the directive is in ../internal/ghprim/doc.go, where removing a spec
// cannot delete a file go generate is about to read). A test in
// internal/cli fails when these files do not match macros.d.
package generated
