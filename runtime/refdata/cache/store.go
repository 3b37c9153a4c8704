package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// Options configure the cache and, embedded, how the bundles it syncs are
// loaded and verified.
type Options struct {
	refdata.Options
	// Path is the SQLite cache file ("": DefaultPath()).
	Path string
	// TTL is how long a synced version is served before reads report it
	// stale and a re-sync is due (0: no limit). Publishers bound a bundle's
	// life with expires_at; the TTL is the deployment's own freshness bound.
	TTL time.Duration
	// BusyTimeout is how long a writer waits for another's lock on the
	// cache (0: 10s).
	BusyTimeout time.Duration
}

// Store is the reference-data cache: one SQLite database (WAL) holding
// verified bundles keyed by name@version, their rows indexed by key, the
// current version of each bundle and its pin. Any number of readers (in
// this process or others) run alongside one writer; a sync is one
// transaction, so readers see the previous version until it commits, and a
// crash during it leaves the previous version in place.
type Store struct {
	opts Options
	path string
	w    *sql.DB // one connection; transactions begin IMMEDIATE
	r    *sql.DB // read-only pool

	lookupCurrent *sql.Stmt
	lookupVersion *sql.Stmt
}

// testHookRowInserted, when set by a test, runs after each row a sync
// inserts; the crash test exits the process from it.
var testHookRowInserted func(n int)

// migrations upgrade the cache's schema in order; PRAGMA user_version
// records how many a database has had.
var migrations = []string{
	// 1: the initial layout.
	`CREATE TABLE bundles (
		id           INTEGER PRIMARY KEY,
		name         TEXT NOT NULL,
		version      TEXT NOT NULL,
		published_at TEXT NOT NULL,            -- RFC 3339, as in the manifest
		expires_at   INTEGER,                  -- Unix seconds, NULL: never
		signed_by    TEXT NOT NULL,            -- key id
		digest       TEXT NOT NULL,            -- sha256 of the canonical signed manifest
		manifest     BLOB NOT NULL,            -- the signed manifest, canonical JSON
		source       TEXT NOT NULL,            -- where it was synced from
		synced_at    INTEGER NOT NULL,         -- Unix nanoseconds of the last verified sync
		UNIQUE (name, version)
	);
	CREATE TABLE files (
		id         INTEGER PRIMARY KEY,
		bundle_id  INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
		path       TEXT NOT NULL,
		format     TEXT NOT NULL,
		key_column TEXT,                       -- NULL: no key
		rows       INTEGER NOT NULL,
		schema     TEXT NOT NULL,
		UNIQUE (bundle_id, path)
	);
	CREATE TABLE rows (
		file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
		ordinal INTEGER NOT NULL,              -- 1-based row number in the file
		key     TEXT,                          -- the key column as text
		data    TEXT NOT NULL,                 -- the row as canonical JSON
		PRIMARY KEY (file_id, ordinal)
	) WITHOUT ROWID;
	CREATE UNIQUE INDEX rows_by_key ON rows (file_id, key);
	CREATE TABLE pins (
		name      TEXT PRIMARY KEY,
		range     TEXT NOT NULL,
		pinned_at INTEGER NOT NULL
	);
	CREATE TABLE current (
		name      TEXT PRIMARY KEY,
		bundle_id INTEGER NOT NULL REFERENCES bundles(id)
	);`,
}

// DefaultPath is the cache's default location:
// <os.UserCacheDir()>/macrokit/refdata.db.
func DefaultPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "macrokit", "refdata.db"), nil
}

func cacheErr(err error, format string, args ...any) *refdata.Error {
	return &refdata.Error{Code: refdata.CodeCache, Msg: fmt.Sprintf(format, args...) + ": " + err.Error(), Err: err}
}

// Open opens (creating if needed) the cache at o.Path and brings its
// schema up to date.
func Open(ctx context.Context, o Options) (*Store, error) {
	p := o.Path
	if p == "" {
		var err error
		if p, err = DefaultPath(); err != nil {
			return nil, cacheErr(err, "no cache directory")
		}
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return nil, cacheErr(err, "cache path")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, cacheErr(err, "cache directory")
	}
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	s := &Store{opts: o, path: p}
	if s.w, err = sql.Open("sqlite", dsn(p, true, busy)); err != nil {
		return nil, cacheErr(err, "open %s", p)
	}
	s.w.SetMaxOpenConns(1)
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	if s.r, err = sql.Open("sqlite", dsn(p, false, busy)); err != nil {
		s.w.Close()
		return nil, cacheErr(err, "open %s", p)
	}
	s.r.SetMaxIdleConns(8)
	const lookup = `SELECT b.version, b.expires_at, b.synced_at, b.signed_by, f.id, f.key_column, r.data
		FROM %s
		LEFT JOIN files f ON f.bundle_id = b.id AND f.path = ?2
		LEFT JOIN rows r ON r.file_id = f.id AND r.key = ?3`
	if s.lookupCurrent, err = s.r.PrepareContext(ctx, fmt.Sprintf(lookup, "current c JOIN bundles b ON b.id = c.bundle_id")+" WHERE c.name = ?1"); err == nil {
		s.lookupVersion, err = s.r.PrepareContext(ctx, fmt.Sprintf(lookup, "bundles b")+" WHERE b.name = ?1 AND b.version = ?4")
	}
	if err != nil {
		s.Close()
		return nil, cacheErr(err, "prepare")
	}
	return s, nil
}

// dsn is the modernc.org/sqlite data source name. The writer sets WAL
// (persistent in the file) and begins transactions IMMEDIATE, so a second
// writer waits for the lock up front instead of failing at its first write.
func dsn(path string, write bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	// Memory-mapped reads skip a read(2) per page: a lookup in a 100k-row
	// bundle takes about a quarter less CPU (docs/refdata.md, "Figures").
	q.Add("_pragma", "mmap_size(268435456)")
	if write {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	return "file:" + esc + "?" + q.Encode()
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return cacheErr(err, "open %s", s.path)
	}
	defer tx.Rollback()
	var have int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return cacheErr(err, "read the schema version")
	}
	if have > len(migrations) {
		return &refdata.Error{Code: refdata.CodeCache, Msg: fmt.Sprintf("%s has cache schema %d; this binary knows up to %d", s.path, have, len(migrations))}
	}
	for i := have; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return cacheErr(err, "migration %d", i+1)
		}
	}
	if have < len(migrations) {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
			return cacheErr(err, "record the schema version")
		}
	}
	if err := tx.Commit(); err != nil {
		return cacheErr(err, "migrate")
	}
	return nil
}

// Path is the cache file.
func (s *Store) Path() string { return s.path }

// Close closes the cache.
func (s *Store) Close() error {
	for _, st := range []*sql.Stmt{s.lookupCurrent, s.lookupVersion} {
		if st != nil {
			st.Close()
		}
	}
	var err error
	if s.r != nil {
		err = s.r.Close()
	}
	if s.w != nil {
		err = errors.Join(err, s.w.Close())
	}
	return err
}

// SyncOptions tune Sync and Install.
type SyncOptions struct {
	// Pin, when set, becomes the bundle's pin in the same transaction, so
	// the version must satisfy it (and may then be older than the current
	// one).
	Pin string
}

// SyncResult reports what a sync changed.
type SyncResult struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Previous is the version that was current before ("" if none).
	Previous string `json:"previous,omitempty"`
	Files    int    `json:"files"`
	Rows     int    `json:"rows"`
	// Unchanged: this exact artifact was already cached; only its sync
	// time was refreshed.
	Unchanged bool `json:"unchanged"`
	// Replaced: name@version was cached with other content and was
	// replaced (a republished version).
	Replaced bool          `json:"replaced"`
	Pin      string        `json:"pin,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Sync loads and verifies the bundle at src (see Load), checks it is the
// bundle called name, and installs it (see Install). A bundle that fails any
// check leaves the cache as it was.
func (s *Store) Sync(ctx context.Context, name, src string, o SyncOptions) (*SyncResult, error) {
	start := time.Now()
	if o.Pin != "" {
		if _, err := refdata.ParseRange(o.Pin); err != nil {
			return nil, &refdata.Error{Code: refdata.CodePinMismatch, Bundle: name, Msg: err.Error(), Err: err}
		}
	}
	b, err := refdata.Load(ctx, src, s.opts.Options)
	if err != nil {
		return nil, err
	}
	if b.Manifest.Name != name {
		return nil, &refdata.Error{Code: refdata.CodeNameMismatch, Bundle: b.Manifest.Ref(), Msg: fmt.Sprintf("asked for %q, the source holds %q", name, b.Manifest.Name)}
	}
	res, err := s.Install(ctx, b, o)
	if res != nil {
		res.Duration = time.Since(start)
	}
	return res, err
}

// Install caches a verified bundle in one transaction and makes it the
// current version. Without a pin an older version than the current one is
// refused (downgrade); with one, the version must satisfy it
// (pin_mismatch). Re-installing a cached name@version replaces it.
func (s *Store) Install(ctx context.Context, b *refdata.Bundle, o SyncOptions) (*SyncResult, error) {
	if !b.Verified() {
		return nil, &refdata.Error{Code: refdata.CodeManifestInvalid, Msg: "Install takes only bundles that Load verified"}
	}
	start := time.Now()
	m := b.Manifest
	ref := m.Ref()
	v, err := refdata.ParseVersion(m.Version)
	if err != nil {
		return nil, &refdata.Error{Code: refdata.CodeManifestInvalid, Bundle: ref, Msg: err.Error()}
	}
	digest, err := m.Digest()
	if err != nil {
		return nil, &refdata.Error{Code: refdata.CodeManifestInvalid, Bundle: ref, Msg: err.Error()}
	}
	raw, err := m.Canonical()
	if err != nil {
		return nil, &refdata.Error{Code: refdata.CodeManifestInvalid, Bundle: ref, Msg: err.Error()}
	}
	newPin := ""
	if o.Pin != "" {
		r, err := refdata.ParseRange(o.Pin)
		if err != nil {
			return nil, &refdata.Error{Code: refdata.CodePinMismatch, Bundle: ref, Msg: err.Error(), Err: err}
		}
		newPin = r.String()
	}
	now := s.opts.CurrentTime()

	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, cacheErr(err, "begin")
	}
	defer tx.Rollback()
	res := &SyncResult{Name: m.Name, Version: m.Version, Files: len(b.Files), Rows: b.Rows()}
	if newPin != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO pins (name, range, pinned_at) VALUES (?1, ?2, ?3)
			ON CONFLICT (name) DO UPDATE SET range = excluded.range, pinned_at = excluded.pinned_at`, m.Name, newPin, now.UnixNano()); err != nil {
			return nil, cacheErr(err, "pin")
		}
	}
	var pin sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT range FROM pins WHERE name = ?`, m.Name).Scan(&pin); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, cacheErr(err, "read the pin")
	}
	res.Pin = pin.String
	if pin.Valid {
		r, err := refdata.ParseRange(pin.String)
		if err != nil {
			return nil, &refdata.Error{Code: refdata.CodePinMismatch, Bundle: ref, Msg: fmt.Sprintf("stored pin %q: %v", pin.String, err)}
		}
		if !r.Match(v) {
			return nil, &refdata.Error{Code: refdata.CodePinMismatch, Bundle: ref, Msg: fmt.Sprintf("%s is outside the pin %q", m.Version, pin.String)}
		}
	}
	var cur sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT b.version FROM current c JOIN bundles b ON b.id = c.bundle_id WHERE c.name = ?`, m.Name).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, cacheErr(err, "read the current version")
	}
	res.Previous = cur.String
	if cur.Valid && !pin.Valid {
		if cv, err := refdata.ParseVersion(cur.String); err == nil && v.Compare(cv) < 0 {
			return nil, &refdata.Error{Code: refdata.CodeDowngrade, Bundle: ref, Msg: fmt.Sprintf("%s is older than the current %s; pin a range that allows it to downgrade", m.Version, cur.String)}
		}
	}
	var oldID int64
	var oldDigest string
	err = tx.QueryRowContext(ctx, `SELECT id, digest FROM bundles WHERE name = ? AND version = ?`, m.Name, m.Version).Scan(&oldID, &oldDigest)
	switch {
	case err == nil && oldDigest == digest:
		if _, err := tx.ExecContext(ctx, `UPDATE bundles SET synced_at = ?, source = ? WHERE id = ?`, now.UnixNano(), b.Source, oldID); err != nil {
			return nil, cacheErr(err, "refresh")
		}
		if err := setCurrent(ctx, tx, m.Name, oldID); err != nil {
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, cacheErr(err, "commit")
		}
		res.Unchanged = true
		res.Duration = time.Since(start)
		return res, nil
	case err == nil:
		// A republished version: clear the pointer before the delete so no
		// reader can follow it to a half-replaced bundle; the transaction
		// makes both invisible until commit anyway.
		if _, err := tx.ExecContext(ctx, `DELETE FROM current WHERE bundle_id = ?`, oldID); err != nil {
			return nil, cacheErr(err, "replace")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM bundles WHERE id = ?`, oldID); err != nil {
			return nil, cacheErr(err, "replace")
		}
		res.Replaced = true
	case !errors.Is(err, sql.ErrNoRows):
		return nil, cacheErr(err, "read the cached versions")
	}
	var exp any
	if m.ExpiresAt != nil {
		exp = m.ExpiresAt.Unix()
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO bundles (name, version, published_at, expires_at, signed_by, digest, manifest, source, synced_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, m.Name, m.Version, m.PublishedAt.UTC().Format(time.RFC3339Nano), exp, m.SignedBy, digest, raw, b.Source, now.UnixNano())
	if err != nil {
		return nil, cacheErr(err, "insert the bundle")
	}
	bid, err := r.LastInsertId()
	if err != nil {
		return nil, cacheErr(err, "insert the bundle")
	}
	insRow, err := tx.PrepareContext(ctx, `INSERT INTO rows (file_id, ordinal, key, data) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return nil, cacheErr(err, "prepare")
	}
	defer insRow.Close()
	n := 0
	for _, f := range b.Files {
		var key any
		if f.Entry.Key != "" {
			key = f.Entry.Key
		}
		r, err := tx.ExecContext(ctx, `INSERT INTO files (bundle_id, path, format, key_column, rows, schema) VALUES (?, ?, ?, ?, ?, ?)`,
			bid, f.Entry.Path, string(f.Entry.Format), key, len(f.Rows), string(f.Entry.Schema))
		if err != nil {
			return nil, cacheErr(err, "insert %s", f.Entry.Path)
		}
		fid, err := r.LastInsertId()
		if err != nil {
			return nil, cacheErr(err, "insert %s", f.Entry.Path)
		}
		for i, row := range f.Rows {
			var k any
			if f.Entry.Key != "" {
				k = row.Key
			}
			if _, err := insRow.ExecContext(ctx, fid, i+1, k, string(row.Data)); err != nil {
				return nil, cacheErr(err, "insert %s row %d", f.Entry.Path, i+1)
			}
			n++
			if testHookRowInserted != nil {
				testHookRowInserted(n)
			}
		}
	}
	if err := setCurrent(ctx, tx, m.Name, bid); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, cacheErr(err, "commit")
	}
	s.checkpoint(ctx)
	res.Duration = time.Since(start)
	return res, nil
}

// checkpoint moves the WAL into the database and truncates it. Until then
// every read of a page a big sync wrote goes through the WAL index, which
// makes lookups about twice as slow. Best effort: a reader holding an old
// snapshot only delays it to the next write.
func (s *Store) checkpoint(ctx context.Context) {
	_, _ = s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

func setCurrent(ctx context.Context, tx *sql.Tx, name string, id int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO current (name, bundle_id) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET bundle_id = excluded.bundle_id`, name, id)
	if err != nil {
		return cacheErr(err, "set the current version")
	}
	return nil
}

// Pin sets name's pin and makes the highest cached, unexpired version that
// satisfies it current. When none does, name has no current version (reads
// fail with not_found) until a sync brings one; current is then "".
func (s *Store) Pin(ctx context.Context, name, rng string) (current string, err error) {
	r, err := refdata.ParseRange(rng)
	if err != nil {
		return "", &refdata.Error{Code: refdata.CodePinMismatch, Bundle: name, Msg: err.Error(), Err: err}
	}
	now := s.opts.CurrentTime()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return "", cacheErr(err, "begin")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO pins (name, range, pinned_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (name) DO UPDATE SET range = excluded.range, pinned_at = excluded.pinned_at`, name, r.String(), now.UnixNano()); err != nil {
		return "", cacheErr(err, "pin")
	}
	vs, err := versions(ctx, tx, name)
	if err != nil {
		return "", err
	}
	var best *cachedVersion
	for i := range vs {
		c := &vs[i]
		if r.Match(c.v) && !c.expired(now) && (best == nil || c.v.Compare(best.v) > 0) {
			best = c
		}
	}
	if best == nil {
		if _, err := tx.ExecContext(ctx, `DELETE FROM current WHERE name = ?`, name); err != nil {
			return "", cacheErr(err, "pin")
		}
	} else if err := setCurrent(ctx, tx, name, best.id); err != nil {
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return "", cacheErr(err, "commit")
	}
	if best == nil {
		return "", nil
	}
	return best.v.String(), nil
}

// Unpin removes name's pin; the current version stays, and later syncs
// are again refused when they would downgrade.
func (s *Store) Unpin(ctx context.Context, name string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM pins WHERE name = ?`, name); err != nil {
		return cacheErr(err, "unpin")
	}
	return nil
}

type cachedVersion struct {
	id      int64
	v       refdata.Version
	expires sql.NullInt64
	current bool
}

func (c *cachedVersion) expired(now time.Time) bool {
	return c.expires.Valid && now.Unix() >= c.expires.Int64
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// versions lists name's cached versions, newest first.
func versions(ctx context.Context, q queryer, name string) ([]cachedVersion, error) {
	rows, err := q.QueryContext(ctx, `SELECT b.id, b.version, b.expires_at, c.bundle_id IS NOT NULL
		FROM bundles b LEFT JOIN current c ON c.bundle_id = b.id WHERE b.name = ?`, name)
	if err != nil {
		return nil, cacheErr(err, "list versions")
	}
	defer rows.Close()
	var out []cachedVersion
	for rows.Next() {
		var c cachedVersion
		var vs string
		if err := rows.Scan(&c.id, &vs, &c.expires, &c.current); err != nil {
			return nil, cacheErr(err, "list versions")
		}
		v, err := refdata.ParseVersion(vs)
		if err != nil {
			continue
		}
		c.v = v
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, cacheErr(err, "list versions")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].v.Compare(out[j].v) > 0 })
	return out, nil
}

// Entry describes one cached version.
type Entry struct {
	Name        string     `json:"name"`
	Version     string     `json:"version"`
	Current     bool       `json:"current"`
	Pin         string     `json:"pin,omitempty"`
	PublishedAt time.Time  `json:"published_at"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	SyncedAt    time.Time  `json:"synced_at"`
	SignedBy    string     `json:"signed_by"`
	Source      string     `json:"source"`
	Files       int        `json:"files"`
	Rows        int        `json:"rows"`
	// Expired: expires_at has passed; reads refuse it.
	Expired bool `json:"expired"`
	// Stale: synced longer than the TTL ago; reads refuse it until a
	// re-sync.
	Stale bool `json:"stale"`
}

const entryColumns = `b.id, b.name, b.version, c.bundle_id IS NOT NULL, p.range, b.published_at, b.expires_at, b.synced_at, b.signed_by, b.source,
	(SELECT count(*) FROM files f WHERE f.bundle_id = b.id), (SELECT coalesce(sum(f.rows), 0) FROM files f WHERE f.bundle_id = b.id)
	FROM bundles b LEFT JOIN current c ON c.bundle_id = b.id LEFT JOIN pins p ON p.name = b.name`

func (s *Store) scanEntry(sc interface{ Scan(...any) error }) (int64, *Entry, error) {
	var e Entry
	var id int64
	var pin sql.NullString
	var exp sql.NullInt64
	var synced int64
	var published string
	if err := sc.Scan(&id, &e.Name, &e.Version, &e.Current, &pin, &published, &exp, &synced, &e.SignedBy, &e.Source, &e.Files, &e.Rows); err != nil {
		return 0, nil, err
	}
	e.PublishedAt, _ = time.Parse(time.RFC3339Nano, published)
	e.Pin = pin.String
	now := s.opts.CurrentTime()
	if exp.Valid {
		t := time.Unix(exp.Int64, 0).UTC()
		e.ExpiresAt = &t
		e.Expired = now.Unix() >= exp.Int64
	}
	e.SyncedAt = time.Unix(0, synced).UTC()
	e.Stale = s.opts.TTL > 0 && now.Sub(e.SyncedAt) > s.opts.TTL
	return id, &e, nil
}

// List returns every cached version, by name and then newest first.
func (s *Store) List(ctx context.Context) ([]Entry, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+entryColumns)
	if err != nil {
		return nil, cacheErr(err, "list")
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		_, e, err := s.scanEntry(rows)
		if err != nil {
			return nil, cacheErr(err, "list")
		}
		out = append(out, *e)
	}
	if err := rows.Err(); err != nil {
		return nil, cacheErr(err, "list")
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		vi, _ := refdata.ParseVersion(out[i].Version)
		vj, _ := refdata.ParseVersion(out[j].Version)
		return vi.Compare(vj) > 0
	})
	return out, nil
}

// Pins returns every pin by bundle name.
func (s *Store) Pins(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, range FROM pins`)
	if err != nil {
		return nil, cacheErr(err, "pins")
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, r string
		if err := rows.Scan(&n, &r); err != nil {
			return nil, cacheErr(err, "pins")
		}
		out[n] = r
	}
	return out, rows.Err()
}

// SplitRef splits "name@version" ("name": version "", the current one).
func SplitRef(ref string) (name, version string) {
	name, version, _ = strings.Cut(ref, "@")
	return name, version
}

// resolve finds the bundle ref names and checks it may be read.
func (s *Store) resolve(ctx context.Context, ref string) (int64, *Entry, error) {
	name, version := SplitRef(ref)
	var row *sql.Row
	if version == "" {
		row = s.r.QueryRowContext(ctx, `SELECT `+entryColumns+` WHERE c.name = ?`, name)
	} else {
		row = s.r.QueryRowContext(ctx, `SELECT `+entryColumns+` WHERE b.name = ? AND b.version = ?`, name, version)
	}
	id, e, err := s.scanEntry(row)
	if errors.Is(err, sql.ErrNoRows) {
		if version == "" {
			return 0, nil, &refdata.Error{Code: refdata.CodeNotFound, Bundle: name, Msg: "no current version cached (sync it, or widen its pin)"}
		}
		return 0, nil, &refdata.Error{Code: refdata.CodeNotFound, Bundle: ref, Msg: "not cached"}
	}
	if err != nil {
		return 0, nil, cacheErr(err, "read %s", ref)
	}
	if err := s.readable(e.Name+"@"+e.Version, e.ExpiresAt, e.SyncedAt, e.SignedBy); err != nil {
		return 0, nil, err
	}
	return id, e, nil
}

// readable applies the read-time checks: expiry, TTL and, when the store
// has trusted keys, that the signer is still one of them (removing a key
// from the configuration revokes what it signed).
func (s *Store) readable(ref string, expires *time.Time, synced time.Time, signer string) error {
	now := s.opts.CurrentTime()
	if expires != nil && !now.Before(*expires) {
		return &refdata.Error{Code: refdata.CodeExpired, Bundle: ref, Msg: fmt.Sprintf("expired at %s", expires.UTC().Format(time.RFC3339))}
	}
	if s.opts.TTL > 0 && now.Sub(synced) > s.opts.TTL {
		return &refdata.Error{Code: refdata.CodeStale, Bundle: ref, Msg: fmt.Sprintf("synced %s ago; the TTL is %s", now.Sub(synced).Round(time.Second), s.opts.TTL)}
	}
	if len(s.opts.TrustedKeys) > 0 {
		for _, k := range s.opts.TrustedKeys {
			if k != nil && k.ID == signer {
				return nil
			}
		}
		return &refdata.Error{Code: refdata.CodeUntrustedKey, Bundle: ref, Msg: fmt.Sprintf("signed by %s, which is no longer trusted", signer)}
	}
	return nil
}

// Manifest returns the cached manifest of ref ("name": the current
// version; "name@version": that one) with its cache entry.
func (s *Store) Manifest(ctx context.Context, ref string) (*Entry, *refdata.Manifest, error) {
	id, e, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	if err := s.r.QueryRowContext(ctx, `SELECT manifest FROM bundles WHERE id = ?`, id).Scan(&raw); err != nil {
		return nil, nil, cacheErr(err, "read %s", ref)
	}
	m, err := refdata.ParseManifest(raw)
	if err != nil {
		return nil, nil, err
	}
	return e, m, nil
}

// EachRow calls fn with every row of file in ref, in file order; an error
// from fn stops the walk and is returned.
func (s *Store) EachRow(ctx context.Context, ref, file string, fn func(key string, row json.RawMessage) error) error {
	id, e, err := s.resolve(ctx, ref)
	if err != nil {
		return err
	}
	var fid int64
	if err := s.r.QueryRowContext(ctx, `SELECT id FROM files WHERE bundle_id = ? AND path = ?`, id, file).Scan(&fid); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return &refdata.Error{Code: refdata.CodeNotFound, Bundle: e.Name + "@" + e.Version, File: file, Msg: "no such file in the bundle"}
		}
		return cacheErr(err, "read %s", file)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT coalesce(key, ''), data FROM rows WHERE file_id = ? ORDER BY ordinal`, fid)
	if err != nil {
		return cacheErr(err, "read %s", file)
	}
	defer rows.Close()
	for rows.Next() {
		var k, data string
		if err := rows.Scan(&k, &data); err != nil {
			return cacheErr(err, "read %s", file)
		}
		if err := fn(k, json.RawMessage(data)); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return cacheErr(err, "read %s", file)
	}
	return nil
}

// LookupRaw returns the row of file whose key column equals key, as
// canonical JSON, from bundle ("name": its current version;
// "name@version": that one). Errors: not_found (bundle, file, key column or
// key), expired, stale, untrusted_key, cache.
func (s *Store) LookupRaw(ctx context.Context, bundle, file, key string) (json.RawMessage, error) {
	raw, _, err := s.lookupRaw(ctx, bundle, file, key)
	return raw, err
}

// lookupRaw is LookupRaw that also returns the name@version it read.
func (s *Store) lookupRaw(ctx context.Context, bundle, file, key string) (json.RawMessage, string, error) {
	name, version := SplitRef(bundle)
	st, args := s.lookupCurrent, []any{name, file, key}
	if version != "" {
		st, args = s.lookupVersion, append(args, version)
	}
	var (
		ver     string
		exp     sql.NullInt64
		synced  int64
		signer  string
		fid     sql.NullInt64
		keyCol  sql.NullString
		data    sql.NullString
		expires *time.Time
	)
	err := st.QueryRowContext(ctx, args...).Scan(&ver, &exp, &synced, &signer, &fid, &keyCol, &data)
	if errors.Is(err, sql.ErrNoRows) {
		if version == "" {
			return nil, "", &refdata.Error{Code: refdata.CodeNotFound, Bundle: name, Msg: "no current version cached (sync it, or widen its pin)"}
		}
		return nil, "", &refdata.Error{Code: refdata.CodeNotFound, Bundle: bundle, Msg: "not cached"}
	}
	if err != nil {
		return nil, "", cacheErr(err, "lookup %s %s %q", bundle, file, key)
	}
	ref := name + "@" + ver
	if exp.Valid {
		t := time.Unix(exp.Int64, 0)
		expires = &t
	}
	if err := s.readable(ref, expires, time.Unix(0, synced), signer); err != nil {
		return nil, ref, err
	}
	switch {
	case !fid.Valid:
		return nil, ref, &refdata.Error{Code: refdata.CodeNotFound, Bundle: ref, File: file, Msg: "no such file in the bundle"}
	case !keyCol.Valid:
		return nil, ref, &refdata.Error{Code: refdata.CodeNotFound, Bundle: ref, File: file, Msg: "the file has no key column"}
	case !data.Valid:
		return nil, ref, &refdata.Error{Code: refdata.CodeNotFound, Bundle: ref, File: file, Column: keyCol.String, Msg: fmt.Sprintf("no row with key %q", key)}
	}
	return json.RawMessage(data.String), ref, nil
}

// Lookup is LookupRaw decoded: a map of the row's columns, numbers as
// json.Number (the runtime's convention for decoded JSON).
func (s *Store) Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error) {
	raw, err := s.LookupRaw(ctx, bundle, file, key)
	if err != nil {
		return nil, err
	}
	return decodeRow(raw)
}

// LookupRef is Lookup that also returns the name@version the row was read
// from (also on a not_found for the file, key column or key).
func (s *Store) LookupRef(ctx context.Context, bundle, file, key string) (map[string]any, string, error) {
	raw, ref, err := s.lookupRaw(ctx, bundle, file, key)
	if err != nil {
		return nil, ref, err
	}
	row, err := decodeRow(raw)
	return row, ref, err
}

func decodeRow(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, cacheErr(err, "decode a cached row")
	}
	return out, nil
}

// PruneOptions tune Prune.
type PruneOptions struct {
	// Keep is how many non-current versions to keep per bundle, newest
	// first (expired ones are never kept).
	Keep int
}

// Prune deletes cached versions that are not current, beyond the newest
// Keep per bundle, and every expired one that is not current, then
// truncates the WAL. It returns the name@version of each deleted version.
func (s *Store) Prune(ctx context.Context, o PruneOptions) ([]string, error) {
	now := s.opts.CurrentTime()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, cacheErr(err, "begin")
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT name FROM bundles ORDER BY name`)
	if err != nil {
		return nil, cacheErr(err, "prune")
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, cacheErr(err, "prune")
		}
		names = append(names, n)
	}
	rows.Close()
	var removed []string
	for _, name := range names {
		vs, err := versions(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		kept := 0
		for _, c := range vs {
			if c.current {
				continue
			}
			if !c.expired(now) && kept < o.Keep {
				kept++
				continue
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM bundles WHERE id = ?`, c.id); err != nil {
				return nil, cacheErr(err, "prune %s@%s", name, c.v)
			}
			removed = append(removed, name+"@"+c.v.String())
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, cacheErr(err, "commit")
	}
	s.checkpoint(ctx)
	return removed, nil
}
