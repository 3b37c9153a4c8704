// Package gate finds the workflows people and models did by hand with the
// raw explore tools (page_click, page_fill, http_request, ...) in session
// logs, and turns each repeated workflow into a suggested macro spec.
//
// It is runtime-side (every deployment binary can expose `gate`), so it
// does not import the spec compiler or the runtime: it reads the session-log
// format of [github.com/macrokit/macrokit-go/runtime/sessionlog] (the
// contract of docs/explore.md) with its own bounded streaming decoder, and
// writes spec YAML that `macrokit check` validates.
//
// The pipeline: a streaming reader (bounded lines, torn and foreign lines
// counted, never a whole file in memory) assembles turns; a turn with at
// least Threshold raw calls is a finding; findings with the same sequence
// shape (tool kinds and targets, values abstracted) form a group; aligning
// a group's occurrences makes varying values parameters and constant ones
// literals; observed results become expect post-conditions. See docs/gate.md.
package gate
