// Package totp computes RFC 6238 time-based one-time passwords, so a login
// macro can fill a second factor: [Code] from a raw key, [Generate] from the
// base32 secret (or otpauth:// URI) an authenticator app is given.
//
// The secret is a credential: callers treat it, and the codes, as secrets
// everywhere they appear. The package imports only the standard library.
package totp
