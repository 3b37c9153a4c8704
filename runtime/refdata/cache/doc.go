// Package cache is the reference-data cache: one SQLite database (WAL,
// pure-Go driver) holding the bundles that
// [github.com/macrokit/macrokit-go/runtime/refdata.Load] verified, keyed by
// name@version, with the current version of each bundle and its pin.
//
// [Open] opens it ([DefaultPath] unless the options name a file);
// [Store.Sync] loads, verifies and installs a bundle in one transaction;
// [Store.Lookup] and [Store.LookupRef] serve rows by key, and [Lazy] opens
// the store on the first lookup, so a binary can put it in every run's
// context (refdata.NewContext) without touching the cache in runs that
// never read it. See docs/refdata.md for the layout and the figures.
package cache
