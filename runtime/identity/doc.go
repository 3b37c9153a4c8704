// Package identity is who a deployment's calls run as, kept between calls:
// each named identity has a persisted browser state (cookies and per-origin
// localStorage, the shape Playwright's storage state has) and the record of
// the logins that produced it.
//
// [State] is the format the engine restores into a browser context and
// reads back after a call; [Diff] and [Delta.Apply] merge what one call
// changed into the stored state without undoing what a concurrent call of
// the same identity saved. [Store] keeps one file per identity under the
// deployment's state directory (0600 in a 0700 directory), optionally
// sealed with AES-256-GCM under a key from the environment ([EnvKey]);
// updates are read-modify-write under an flock, so several processes can
// share a store, and [Store.LockLogin] makes one login per identity and
// provider run at a time across them.
//
// The package imports only the standard library. docs/identity.md has the
// file format and the threat model.
package identity
