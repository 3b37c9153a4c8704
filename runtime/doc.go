// Package runtime is the small core every macrokit deployment links: the
// macro registry, the dispatcher (arguments -> validated, typed call ->
// verified result), the session log, and the guardrails around dangerous
// macros. It never imports spec or gen: generated code depends on it, not the
// other way round.
package runtime
