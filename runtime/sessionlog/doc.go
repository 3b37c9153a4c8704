// Package sessionlog is the session-log format: one JSONL file per session
// under a directory ([DefaultDir]), one [Record] a line, in the order things
// happened (the user's request, each tool call and its result with the
// checks' evidence, the router's events, the reply).
//
// A [Writer] ([Open], named by [NewID]) appends records, fsync'd one by
// one and with the secrets registered by [Writer.AddSecret] redacted
// ([github.com/macrokit/macrokit-go/runtime/redact]); every line is valid
// UTF-8 JSON of at most [MaxLineBytes] (long strings cut, marked with
// their length and hash), and a file past [Writer.SetMaxFileBytes]
// continues in <id>.<n>.jsonl. [Read] decodes a log one line at a time,
// counting torn, foreign and oversized lines in [Stats] instead of failing.
// [Digest] streams one log into its [Summary] — a call with no result
// counts as interrupted — and replays its records ([Digested.Each]); [List]
// summarizes the logs of a directory, [Find] resolves an id, an id prefix
// or "last" to a file and [ReadFile] reads a small one whole ([Session]).
//
// The package is a leaf: `sessions`, `gate`, fixtures and the runtime all
// read and write logs through it without linking a browser or a model
// client.
package sessionlog
