package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"syscall"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
)

// Version is the state file's format version.
const Version = 1

// MaxFileBytes caps a state file (and an import): a browser state is a
// few kilobytes; anything near this is not one.
const MaxFileBytes = 16 << 20

// Login is the record of the last login a provider macro ran for an
// identity.
type Login struct {
	At  time.Time `json:"at"`
	Rev int64     `json:"rev"` // how many logins this provider ran for the identity
}

// Record is one identity's stored state.
type Record struct {
	Name   string           `json:"name"`
	Saved  time.Time        `json:"saved"`
	Rev    int64            `json:"rev"` // bumped by every write
	State  State            `json:"state"`
	Logins map[string]Login `json:"logins,omitempty"`
}

// envelope is the file: the record in the clear (Record) or sealed (Nonce
// and Sealed, AES-256-GCM over the record's JSON).
type envelope struct {
	Format int             `json:"macrokit_identity"`
	Name   string          `json:"name"`
	Cipher string          `json:"cipher,omitempty"` // "aes-256-gcm" when sealed
	Nonce  []byte          `json:"nonce,omitempty"`
	Sealed []byte          `json:"sealed,omitempty"`
	Record json.RawMessage `json:"record,omitempty"`
}

const cipherName = "aes-256-gcm"

// Store is a directory of identity files, one `<name>.json` each (0600,
// in a 0700 directory), sealed when the store has a key.
type Store struct {
	dir string
	key []byte
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ValidName checks an identity name: lower-case letters, digits, '_',
// '.', '-', at most 64 characters, starting with a letter or digit.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return &Error{Code: CodeBadName, Msg: fmt.Sprintf("identity name %q: use lower-case letters, digits, '_', '.' and '-' (at most 64, starting with a letter or digit)", name)}
	}
	return nil
}

// Open returns the store in dir, creating it 0700 when missing; key nil
// means files are written in the clear. A directory others can read is
// refused.
func Open(dir string, key []byte) (*Store, error) {
	if key != nil && len(key) != 32 {
		return nil, &Error{Code: CodeBadKey, Msg: "the identity key must be 32 bytes"}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &Error{Code: CodeIO, Path: dir, Msg: "create the identity directory: " + err.Error(), Err: err}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, &Error{Code: CodeIO, Path: dir, Msg: err.Error(), Err: err}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, &Error{Code: CodePermissions, Path: dir, Msg: fmt.Sprintf("the identity directory is open to others (%04o): chmod 700 %s", fi.Mode().Perm(), dir)}
	}
	return &Store{dir: dir, key: key}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Sealed reports whether the store writes sealed files.
func (s *Store) Sealed() bool { return s.key != nil }

func (s *Store) path(name string) string { return filepath.Join(s.dir, name+".json") }

// Load returns name's record; a missing file is an empty record (Rev 0).
func (s *Store) Load(name string) (*Record, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	rec, _, err := s.read(name)
	return rec, err
}

// read returns the record and whether the file was sealed.
func (s *Store) read(name string) (*Record, bool, error) {
	p := s.path(name)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &Record{Name: name, Logins: map[string]Login{}}, false, nil
	}
	if err != nil {
		return nil, false, &Error{Code: CodeIO, Path: p, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, &Error{Code: CodeIO, Path: p, Msg: err.Error(), Err: err}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, false, &Error{Code: CodePermissions, Path: p, Msg: fmt.Sprintf("the identity file is open to others (%04o): chmod 600 %s", fi.Mode().Perm(), p)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, &Error{Code: CodeIO, Path: p, Msg: err.Error(), Err: err}
	}
	rec, sealed, err := s.decode(name, data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Path == "" {
			e.Path = p
		}
		return nil, false, err
	}
	return rec, sealed, nil
}

// decode reads an envelope for identity name (any name when name is "")
// with the store's key.
func (s *Store) decode(name string, data []byte) (*Record, bool, error) {
	return Decode(name, data, s.key)
}

// Decode reads a record as Encode wrote it, for identity name (any name
// when name is ""), opening it with key when it is sealed; sealed reports
// whether it was. Another store of the same format (runtime/identity/kvstore)
// uses it so the envelope and its crypto live in one place.
func Decode(name string, data, key []byte) (rec *Record, sealed bool, err error) {
	if len(data) > MaxFileBytes {
		return nil, false, &Error{Code: CodeCorrupt, Msg: fmt.Sprintf("larger than %d MiB: not an identity state", MaxFileBytes>>20)}
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&env); err != nil {
		return nil, false, &Error{Code: CodeCorrupt, Msg: "not an identity state file (JSON: " + err.Error() + ")", Err: err}
	}
	if env.Format != Version {
		return nil, false, &Error{Code: CodeCorrupt, Msg: fmt.Sprintf("identity format %d, this binary reads %d", env.Format, Version)}
	}
	if name != "" && env.Name != name {
		return nil, false, &Error{Code: CodeCorrupt, Msg: fmt.Sprintf("the file holds identity %q, not %q", env.Name, name)}
	}
	body := []byte(env.Record)
	sealed = env.Cipher != ""
	if sealed {
		if env.Cipher != cipherName {
			return nil, false, &Error{Code: CodeCorrupt, Msg: fmt.Sprintf("unknown cipher %q", env.Cipher)}
		}
		if key == nil {
			return nil, false, &Error{Code: CodeNeedKey, Msg: "the identity is sealed: set " + EnvKey + " to its key"}
		}
		plain, err := open(key, env.Nonce, env.Sealed, additional(env.Name))
		if err != nil {
			return nil, false, &Error{Code: CodeDecrypt, Msg: "cannot open the sealed identity: wrong " + EnvKey + ", or the file was changed", Err: err}
		}
		body = plain
	}
	var r Record
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, false, &Error{Code: CodeCorrupt, Msg: "the identity record is not valid: " + err.Error(), Err: err}
	}
	if r.Name != env.Name {
		return nil, false, &Error{Code: CodeCorrupt, Msg: "the record's name does not match its file"}
	}
	if r.Logins == nil {
		r.Logins = map[string]Login{}
	}
	return &r, sealed, nil
}

func additional(name string) []byte {
	return fmt.Appendf(nil, "macrokit-identity/%d/%s", Version, name)
}

// Encode writes rec as the state file's envelope: sealed with AES-256-GCM
// under key (the identity name bound in), or in the clear when key is nil.
func Encode(rec *Record, key []byte) ([]byte, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	env := envelope{Format: Version, Name: rec.Name}
	if key != nil {
		if env.Nonce, env.Sealed, err = seal(key, body, additional(rec.Name)); err != nil {
			return nil, err
		}
		env.Cipher = cipherName
	} else {
		env.Record = body
	}
	out, err := json.MarshalIndent(env, "", "  ")
	return append(out, '\n'), err
}

// Update runs fn on name's record under the file's lock and writes the
// result atomically (0600) when fn changed it (or the file must be sealed
// now); it returns the record as stored.
func (s *Store) Update(ctx context.Context, name string, fn func(*Record) error) (*Record, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx, filepath.Join(s.dir, name+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, sealed, err := s.read(name)
	if err != nil {
		return nil, err
	}
	before, _ := json.Marshal(rec)
	if err := fn(rec); err != nil {
		return nil, err
	}
	rec.Name = name
	after, _ := json.Marshal(rec)
	if bytes.Equal(before, after) && sealed == s.Sealed() {
		return rec, nil
	}
	rec.Rev++
	rec.Saved = time.Now().UTC()
	if err := s.write(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

func (s *Store) write(rec *Record) error {
	p := s.path(rec.Name)
	data, err := Encode(rec, s.key)
	if err != nil {
		return &Error{Code: CodeIO, Path: p, Msg: "encode: " + err.Error(), Err: err}
	}
	if err := atomicfile.WriteBytes(p, 0o600, data); err != nil {
		return &Error{Code: CodeIO, Path: p, Msg: "write: " + err.Error(), Err: err}
	}
	return nil
}

// lock takes an exclusive flock on path, polling as long as ctx allows.
func (s *Store) lock(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, &Error{Code: CodeIO, Path: path, Msg: "lock: " + err.Error(), Err: err}
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, &Error{Code: CodeIO, Path: path, Msg: "lock: " + err.Error(), Err: err}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

const lockPoll = 20 * time.Millisecond

// LockLogin holds the login lock of (name, provider) across processes
// until unlock is called, waiting as long as ctx allows.
func (s *Store) LockLogin(ctx context.Context, name, provider string) (unlock func(), err error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	return s.lock(ctx, filepath.Join(s.dir, name+"."+provider+".login.lock"))
}

// Delete removes name's state (logout); CodeNotFound when there is none.
func (s *Store) Delete(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	p := s.path(name)
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Error{Code: CodeNotFound, Path: p, Msg: fmt.Sprintf("no saved state for identity %s", name)}
		}
		return &Error{Code: CodeIO, Path: p, Msg: err.Error(), Err: err}
	}
	return nil
}

// Names returns the identities with a state file, sorted.
func (s *Store) Names() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, &Error{Code: CodeIO, Path: s.dir, Msg: err.Error(), Err: err}
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && filepath.Ext(n) == ".json" && ValidName(n[:len(n)-5]) == nil {
			out = append(out, n[:len(n)-5])
		}
	}
	sort.Strings(out)
	return out, nil
}

// Export writes name's record to w: sealed with the store's key, or in the
// clear when plain (or when the store has no key).
func (s *Store) Export(name string, w io.Writer, plain bool) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if _, err := os.Stat(s.path(name)); err != nil {
		return &Error{Code: CodeNotFound, Path: s.path(name), Msg: fmt.Sprintf("no saved state for identity %s", name)}
	}
	rec, _, err := s.read(name)
	if err != nil {
		return err
	}
	key := s.key
	if plain {
		key = nil
	}
	data, err := Encode(rec, key)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Import reads an exported record (clear, or sealed with the store's key)
// and stores it as name, sealed when the store has a key.
func (s *Store) Import(ctx context.Context, name string, r io.Reader) error {
	if err := ValidName(name); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return &Error{Code: CodeIO, Msg: "read the import: " + err.Error(), Err: err}
	}
	in, _, err := s.decode("", data)
	if err != nil {
		return err
	}
	_, err = s.Update(ctx, name, func(rec *Record) error {
		rev := rec.Rev
		*rec = *in
		rec.Name, rec.Rev = name, rev
		return nil
	})
	return err
}
