// Package runtime is the small core every macrokit deployment links, and
// all that generated and hand-written macros need: a [Macro] (params and
// result schemas, risk, a [Handler]) in a [Registry]; the [Dispatcher],
// which turns a [Call] into validated arguments ([Macro.Validate],
// [ValidArgs]), runs the handler on an [Exec] (page steps, in named tabs
// with [TabStep], http, lookup, primitive and nested-call steps, each with
// its [StepRecord] evidence, and screenshots by [ShotMode], secrets
// masked, beside the session log)
// and returns a verified [Outcome]; the [SitePolicy] that bounds where
// steps may go; typed errors ([CallError], [ErrorCode]); the macro tests
// ([MacroTest]); and the [SessionLog] every call is recorded in.
//
// It imports neither spec nor gen (generated code depends on it, not the
// other way round) nor llm: the model router is package runtime/route and
// explore mode's tools are package runtime/explore, both built on
// [Dispatcher]. A built-in tool uses the same extension points as any
// hand-written macro: [Macro.Raw], [Macro.Check], [Macro.SecretsOf],
// [Exec.Record], [Exec.FailStep] and [Exec.Annotate].
package runtime
