// Package gen compiles checked macro specs (package spec) into a typed Go
// package: per macro a params struct, a result struct, the JSON Schemas, a
// handler whose steps are straight-line Go calling packages runtime and
// engine, and a *runtime.Macro constructor; plus registry.go listing them.
//
// [Generate] is a pure function of the spec set: it does no I/O, its output
// does not depend on the order of the specs, and every file starts with
// [Header] ([IsGenerated] recognises it) and is gofmt'd, its imports in two
// groups (standard library first, as goimports writes them). Go code is
// built with github.com/dave/jennifer and formatted once per file.
//
// Step actions, condition kinds and operators are emitted as the constants
// of package runtime/vocab ([vocab.Action.GoName]), so generated code names
// exactly the vocabulary spec accepted.
//
// The golden cases in golden/ (TestGolden) fix the output for valid specs
// and the diagnostics for invalid ones; docs/gen.md describes the generated
// code.
package gen
