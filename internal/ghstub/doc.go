// Package ghstub is a local stand-in for the GitHub REST API: an
// httptest server with small deterministic fixture data (see fixture.go)
// serving the endpoints the GitHub macros of macros.d/github call, and
// recording every write (labels added, comments posted, issues closed) so
// tests can check what a macro changed. It needs no network.
//
// Every /repos and /search request must carry "Authorization: Bearer
// <token>" (Options.Token, default DefaultToken); the log archives that
// run logs redirect to are served without it, like GitHub's signed URLs.
package ghstub
