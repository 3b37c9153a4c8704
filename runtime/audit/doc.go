// Package audit is the contract of the audit log: the consequential events a
// deployment records (approvals asked, granted and denied, dangerous calls
// run, actions and sites blocked, logins, secrets read by name) and the
// [Sink] they go to.
//
// Code that makes a consequential decision calls [Record] with the call's
// context; the command that owns the run puts a sink on the context with
// [With]. Without a sink, Record does nothing, so libraries and tests need
// no audit log. An event never carries a secret's value: [Event.Secret] is a
// name, and [Event.Target] is redacted by the caller.
//
// [Log] is the sink deployments use: an append-only JSONL file, one
// [Entry] a line, each carrying its seq and the SHA-256 of the previous
// line, appended under an flock so several processes can share it.
// [Verify] checks the chain and names the first bad line ([ChainError]);
// [Read] streams entries through a [Filter]. docs/audit.md has the format
// and what a chain can and cannot show.
//
// The package imports only the standard library.
package audit
