package identity

// CONTRACT FILE: the API the identity helper implements (and deletes this
// file). Nothing here may reach main in this form.

import (
	"context"
	"errors"
	"io"
	"time"
)

var errContract = errors.New("identity: contract only")

// EnvKey names the environment variable holding the store's key: the
// standard base64 of 32 random bytes (`macrokit identity keygen`).
const EnvKey = "MACROKIT_IDENTITY_KEY"

// Code classifies an Error.
type Code string

// The error codes.
const (
	CodeNotFound    Code = "not_found"   // no such identity
	CodeBadName     Code = "bad_name"    // not ^[a-z0-9][a-z0-9_.-]{0,63}$
	CodeBadKey      Code = "bad_key"     // the key is not base64 of 32 bytes
	CodeNeedKey     Code = "need_key"    // the file is sealed and no key is set
	CodeDecrypt     Code = "decrypt"     // wrong key or a tampered file
	CodePermissions Code = "permissions" // the file or directory is readable by others
	CodeCorrupt     Code = "corrupt"     // not a state file
)

// Error is an identity store error.
type Error struct {
	Code Code
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Login is the record of the last login a provider macro ran for an
// identity.
type Login struct {
	At  time.Time `json:"at"`
	Rev int64     `json:"rev"` // the number of logins this provider ran for the identity
}

// Record is one identity's stored state.
type Record struct {
	Name   string           `json:"name"`
	Saved  time.Time        `json:"saved"`
	Rev    int64            `json:"rev"` // bumped by every write
	State  State            `json:"state"`
	Logins map[string]Login `json:"logins,omitempty"`
}

// Meta is what `identity list` and `identity show` print: never a cookie
// or storage value.
type Meta struct {
	Name      string               `json:"name"`
	Path      string               `json:"path"`
	Encrypted bool                 `json:"encrypted"`
	Saved     time.Time            `json:"saved"`
	Rev       int64                `json:"rev"`
	Cookies   int                  `json:"cookies"`
	Domains   []string             `json:"domains"`
	Origins   []string             `json:"origins"`
	Expires   *time.Time           `json:"expires,omitempty"` // the earliest persistent cookie expiry
	Logins    map[string]time.Time `json:"logins,omitempty"`
}

// Store is a directory of identity files.
type Store struct{ dir string }

// Open returns the store in dir (created 0700 when missing); key nil means
// files are written in the clear.
func Open(dir string, key []byte) (*Store, error) { return nil, errContract }

// KeyFromEnv returns the key EnvKey holds (nil when unset).
func KeyFromEnv(getenv func(string) string) ([]byte, error) { return nil, errContract }

// NewKey returns a fresh key, encoded as EnvKey wants it.
func NewKey() (string, error) { return "", errContract }

// ValidName checks an identity name.
func ValidName(name string) error { return errContract }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Load returns name's record; a missing file is an empty record (Rev 0).
func (s *Store) Load(name string) (*Record, error) { return nil, errContract }

// Update runs fn on name's record under the file's lock and writes the
// result atomically (0600) when fn changed it; it returns the record as
// stored.
func (s *Store) Update(ctx context.Context, name string, fn func(*Record) error) (*Record, error) {
	return nil, errContract
}

// Delete removes name's state (logout); CodeNotFound when there is none.
func (s *Store) Delete(name string) error { return errContract }

// List returns the metadata of every identity, sorted by name.
func (s *Store) List() ([]Meta, error) { return nil, errContract }

// Show returns one identity's metadata.
func (s *Store) Show(name string) (Meta, error) { return Meta{}, errContract }

// Export writes name's record to w: sealed with the store's key, or in the
// clear when plain.
func (s *Store) Export(name string, w io.Writer, plain bool) error { return errContract }

// Import reads an exported record (clear or sealed with the store's key)
// and stores it as name.
func (s *Store) Import(ctx context.Context, name string, r io.Reader) error { return errContract }

// LockLogin holds the login lock of (name, provider) across processes
// until unlock is called, waiting as long as ctx allows.
func (s *Store) LockLogin(ctx context.Context, name, provider string) (unlock func(), err error) {
	return nil, errContract
}

// Delta is what one call changed in a state.
type Delta struct{}

// Diff returns the changes from base (the state restored into a context)
// to now (the context's state after the call).
func Diff(base, now State) Delta { return Delta{} }

// Empty reports whether d changes nothing.
func (d Delta) Empty() bool { return true }

// Apply returns st with d's changes: cookies set or removed by (name,
// domain, path), localStorage items set or removed per origin.
func (d Delta) Apply(st State) State { return st }

// Secrets returns the values a state holds (cookie values, storage
// values), for redaction.
func (st State) Secrets() []string { return nil }

// Live returns st without the cookies that expired before now.
func (st State) Live(now time.Time) State { return st }
