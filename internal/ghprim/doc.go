// Package ghprim holds the Go primitives the GitHub macros of
// macros.d/github call for what the spec language cannot express: date
// arithmetic (days_ago), parsing a commit message (conventional_commit),
// decoding and matching a CODEOWNERS file (codeowners_owners), counting and
// ranking reviewer candidates (rank_reviewers), and downloading a workflow
// log that is not JSON (fetch_log_text).
//
// The reference deployment reads them the way a user's deployment reads its
// own: each is marked //macrokit:primitive, and `macrokit generate
// --primitives internal/ghprim` takes the signatures from this source and
// registers the functions in generated.Primitives. [WithOptions] sets the
// clock and HTTP client they use.
//
// The go:generate directive sits here, not in generated/: go generate lists
// every package's files before it runs anything, so a directive inside
// generated/ (or in any package that sorts before it, such as cmd/) would
// have it open a file that generate has just removed for a deleted spec.
// Packages run in path order and internal/ sorts after generated/.
package ghprim

//go:generate go run ../../cmd/macrokit generate --macros ../../macros.d --primitives . --out ../../generated
