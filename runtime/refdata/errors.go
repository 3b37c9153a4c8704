package refdata

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, machine-readable reason a bundle was refused or a read
// failed. Codes are part of the public contract: the CLI prints them and
// `--format json` carries them.
type Code string

// Verification codes, in the order Load checks them (docs/refdata.md).
const (
	CodeManifestInvalid  Code = "manifest_invalid"  // manifest.json is malformed, incomplete or inconsistent
	CodeUntrustedKey     Code = "untrusted_key"     // signed_by names no trusted key
	CodeSignatureInvalid Code = "signature_invalid" // the signature does not verify under the trusted key
	CodeFileMissing      Code = "file_missing"      // a file the manifest lists is absent
	CodeSHA256Mismatch   Code = "sha256_mismatch"   // a file's bytes do not hash to the manifest's sha256
	CodeExpired          Code = "expired"           // expires_at has passed
	CodeSchemaInvalid    Code = "schema_invalid"    // a row does not fit its file's schema (or a key is missing or repeated)
)

// Transport codes: the bundle could not be read whole.
const (
	CodeTruncated      Code = "truncated"       // the archive or download ended early
	CodeTooLarge       Code = "too_large"       // the source exceeds a size or count limit
	CodeArchiveInvalid Code = "archive_invalid" // not a gzip'd tar, or an entry that cannot be a bundle file
	CodeFetchFailed    Code = "fetch_failed"    // the source could not be opened or fetched
)

// Cache codes: the bundle verified but the store refused it, or a read
// found nothing usable.
const (
	CodeNameMismatch  Code = "name_mismatch"  // sync NAME got a bundle with another name
	CodeDowngrade     Code = "downgrade"      // an older version than the current one, without a pin
	CodePinMismatch   Code = "pin_mismatch"   // the version is outside the bundle's pin
	CodeNotFound      Code = "not_found"      // no such bundle, version, file or key in the cache
	CodeStale         Code = "stale"          // the current version was synced longer than the TTL ago
	CodeNotConfigured Code = "not_configured" // Lookup was called with no store in the context
	CodeCache         Code = "cache"          // the SQLite cache failed
)

// Error is the typed error of every refdata operation. Match it with
// errors.As, or with errors.Is against the Err* sentinels, which compare
// codes only.
type Error struct {
	Code Code
	// Bundle is "name@version" when known.
	Bundle string
	// File is the bundle file concerned ("manifest.json" for the manifest).
	File string
	// Row is the 1-based data row of File (the CSV header is not counted), 0
	// when the error is not about one row.
	Row int
	// Column is the column (top-level property) concerned, if any.
	Column string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

// Error renders "code: bundle: file: row N: column C: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Bundle != "" {
		b.WriteString(": " + e.Bundle)
	}
	if e.File != "" {
		b.WriteString(": " + e.File)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
	}
	if e.Column != "" {
		b.WriteString(": column " + e.Column)
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so
// errors.Is(err, refdata.ErrExpired) works whatever the details.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrManifestInvalid  = &Error{Code: CodeManifestInvalid}
	ErrUntrustedKey     = &Error{Code: CodeUntrustedKey}
	ErrSignatureInvalid = &Error{Code: CodeSignatureInvalid}
	ErrFileMissing      = &Error{Code: CodeFileMissing}
	ErrSHA256Mismatch   = &Error{Code: CodeSHA256Mismatch}
	ErrExpired          = &Error{Code: CodeExpired}
	ErrSchemaInvalid    = &Error{Code: CodeSchemaInvalid}
	ErrTruncated        = &Error{Code: CodeTruncated}
	ErrTooLarge         = &Error{Code: CodeTooLarge}
	ErrArchiveInvalid   = &Error{Code: CodeArchiveInvalid}
	ErrFetchFailed      = &Error{Code: CodeFetchFailed}
	ErrNameMismatch     = &Error{Code: CodeNameMismatch}
	ErrDowngrade        = &Error{Code: CodeDowngrade}
	ErrPinMismatch      = &Error{Code: CodePinMismatch}
	ErrNotFound         = &Error{Code: CodeNotFound}
	ErrStale            = &Error{Code: CodeStale}
	ErrNotConfigured    = &Error{Code: CodeNotConfigured}
	ErrCache            = &Error{Code: CodeCache}
)

// CodeOf returns err's code, or "" when err is not a refdata error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
