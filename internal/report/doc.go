// Package report turns session logs and batch delivery reports into one
// self-contained HTML file people can look at: the calls of a session as a
// timeline of steps and their checks (status, expected and actual,
// durations, the engine's healing attempts, screenshots), the router's and
// dispatcher's events (approvals, logins, bail-outs) and the conversation;
// for a batch, the row table with its counts and accuracy, each row linked
// to the steps of its call in whichever session logs ran it.
//
// [FromSession] and [FromBatch] build the [Report] model from what the logs
// hold and nothing else (the logs are already redacted: nothing here
// un-redacts or adds a value); [Write] renders it with html/template, so
// every value from a log is escaped, into a file that needs no network:
// CSS and JS inline, a Content-Security-Policy that forbids any fetch, and
// screenshots either inlined as data: URIs or copied into a folder beside
// the file.
//
// The package links no browser, model client or CLI type; the `report`
// and `sessions show --html` commands (internal/cli) resolve ids and call
// it.
package report
