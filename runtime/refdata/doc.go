// Package refdata is the reference-data format: taxonomies, lookup tables,
// scoring weights and prompt snippets shipped as signed, versioned bundles.
//
// A bundle is a directory (or a .tar.gz of one, as a file or at an http(s)
// URL) holding manifest.json and the data files it lists. The [Manifest]
// names the bundle and its semver [Version], lists every file with its
// sha256, format (json or csv), row count, key column and row schema, and
// carries an ed25519 signature ([Sign], [Seal]) over its canonical JSON
// ([AppendCanonical]). [Load] verifies a bundle against the deployment's
// trusted keys ([Options]) and returns a [Bundle] with its typed rows.
// Generated lookup steps read rows through the [Lookuper] in their context
// ([NewContext], [Lookup]); errors are [*Error] with a stable [Code].
//
// The SQLite cache that stores verified bundles and serves lookups is
// package [github.com/macrokit/macrokit-go/runtime/refdata/cache], so the
// compiler (spec, gen) can read manifests without linking SQLite. See
// docs/refdata.md for the format, the verification order and error codes,
// the cache layout and the CLI.
//
// The package is a leaf: it imports neither runtime, spec nor gen.
package refdata
