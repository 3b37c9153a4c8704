// Package explore holds explore mode's tools (page_goto, page_snapshot,
// page_click, page_fill, page_select, page_check, page_press,
// page_extract and http_request) as built-in [runtime.Macro] values
// ([Macros], [Tools], [Lookup]). A [Session] runs them through a
// runtime.Dispatcher, the same validation, logging, evidence and redaction
// path as any macro, on one page per conversation. Their session-log
// records carry raw: true and the evidence macrokit gate reads: the URL
// before and after, the requests sent, read-backs, texts that appeared
// and count deltas (docs/explore.md).
package explore
