// Package spec reads macro specs — the YAML files of macros.d/ — into a
// validated model, or into positioned diagnostics.
//
// [LoadDir] and [LoadFiles] parse every file and run all checks: the keys of
// each step kind, templates and the variables they reference (defined
// before use, visible in their block), types from the parameter and result
// schemas through every step, calls between macros (arguments, risk, cycles),
// primitives against [Options.Primitives], mcp steps against the tool schemas
// of [Options.MCP], lookup steps against the
// project's reference data, secrets (never in a URL, never returned). The
// result is a [Set] of [Spec]s, each with its [Step]s, [Condition]s and typed
// variables, ready for package gen. [ParseFile] parses one file without the
// checks that need the other specs.
//
// Problems come back as [Diagnostics], sorted, every one of them rather
// than the first, each a [Diagnostic] in the format compilers use:
//
//	macros.d/add_customer.yaml:14:7: steps[3].click.role: unknown role "buton" (did you mean "button")
//
// The step vocabulary (page actions, post-conditions, comparison operators,
// element states) is package runtime/vocab's: a [Condition]'s Kind is a
// [vocab.CondKind], a [Predicate]'s Op a [vocab.Op], and the page-action
// [StepKind]s are [vocab.Actions]. [JSONSchema] describes the format for
// editors; [GoName] is the Go identifier generated code uses for a name.
//
// The format itself is documented in docs/spec.md; the compiler's
// diagnostics are tested by the golden corpus in golden/ (package gen's
// TestGolden).
package spec
