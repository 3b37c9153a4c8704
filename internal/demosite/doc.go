// Package demosite is the small back-office web app that macrokit's quick
// start, reference macros and engine tests run against.
//
// It serves the pages /login, /login/verify (a TOTP second factor),
// /customers, /orders and /settings, built from plain HTML, CSS and vanilla
// JavaScript embedded in the binary, and the JSON API those pages call
// (/api/...). All state lives in memory, seeded deterministically from
// [Options.Seed] and the clock, and can be restored with [Site.Reset]. A Site
// is safe for concurrent use.
//
// For end-to-end tests of logins: sessions can expire ([Options.SessionTTL],
// [Site.ExpireSessions]), users can need a one-time code ([Options.TOTP]),
// with RequireLogin each user has their own settings, and [Site.Stats]
// counts logins, challenges and failures.
//
// Fault injection: adding ?inject=slow, flaky, fakeSuccess or error500 to a
// page URL makes that page misbehave in a known way (slow responses, swallowed
// clicks, a success toast that lies), so that macros and the engine can be
// tested against the failures real apps have. The API honours the same modes
// from an X-Inject request header or an inject query parameter. See
// docs/demo-site.md for pages, routes, test ids and the exact semantics.
package demosite
