// Package refdata is reference data for macros: taxonomies, lookup tables,
// scoring weights and prompt snippets shipped as signed, versioned bundles
// and read through a verified SQLite cache.
//
// A bundle is a directory (or a .tar.gz of one, as a file or at an http(s)
// URL) holding manifest.json and the data files it lists. The manifest
// names the bundle and its semver version, lists every file with its
// sha256, format (json or csv), row count, key column and row schema, and
// carries an ed25519 signature over its canonical JSON. Load verifies a
// bundle against the deployment's trusted keys; Store caches verified
// bundles by name@version, tracks the current version and pins, and serves
// rows by key (Store.Lookup, or Lookup through the context for generated
// code). See docs/refdata.md for the format, the verification order and
// error codes, the cache layout and the CLI.
//
// The package stands alone: it imports neither runtime, spec nor gen.
package refdata
