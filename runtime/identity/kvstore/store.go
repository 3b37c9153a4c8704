package kvstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

// Store is a fleet's identity store on one JetStream connection. Any
// number of Stores, on any number of connections and machines, may share
// one bucket.
type Store struct {
	cfg     Config
	records jetstream.KeyValue
	locks   jetstream.KeyValue
	lockTTL time.Duration
	holder  string
	poll    time.Duration // lockPoll; tests shorten it
}

var _ identity.Keeper = (*Store)(nil)

// Open returns the store in cfg's buckets, creating them (file storage)
// when missing; a bucket that exists is used as it is configured, so
// workers opening it with another LockTTL do not change its TTL under
// each other's locks.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	records, err := bucket(ctx, js, jetstream.KeyValueConfig{
		Bucket:      cfg.Bucket,
		Description: "macrokit identities: browser state and logins, one key per identity",
		History:     1, // a superseded session is a copy of a secret nobody needs
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, err
	}
	locks, err := bucket(ctx, js, jetstream.KeyValueConfig{
		Bucket:      cfg.lockBucket(),
		Description: "macrokit identity login locks: a key per identity and provider while its login runs",
		History:     1,
		TTL:         cfg.LockTTL,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, err
	}
	st, err := locks.Status(ctx)
	if err != nil {
		return nil, kvErr(cfg.lockBucket(), "status", err)
	}
	if st.TTL() < MinLockTTL {
		return nil, &identity.Error{Code: identity.CodeBadConfig, Path: cfg.lockBucket(),
			Msg: "the lock bucket's TTL is " + st.TTL().String() + ", under " + MinLockTTL.String() + ": a lock would outlive a dead holder or expire under a live one"}
	}
	return &Store{cfg: cfg, records: records, locks: locks, lockTTL: st.TTL(), holder: holderName(), poll: lockPoll}, nil
}

func bucket(ctx context.Context, js jetstream.JetStream, c jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.CreateKeyValue(ctx, c)
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = js.KeyValue(ctx, c.Bucket)
	}
	switch {
	case errors.Is(err, jetstream.ErrInvalidBucketName):
		return nil, &identity.Error{Code: identity.CodeBadConfig, Path: c.Bucket, Msg: "not a valid bucket name (letters, digits, '-' and '_')", Err: err}
	case err != nil:
		return nil, kvErr(c.Bucket, "open the bucket", err)
	}
	return kv, nil
}

// Config is the store's configuration with its defaults filled in.
func (s *Store) Config() Config { return s.cfg }

// LockTTL is the login lock's TTL: the lock bucket's, which may differ
// from Config.LockTTL when the bucket existed.
func (s *Store) LockTTL() time.Duration { return s.lockTTL }

// Sealed reports whether the store writes sealed records.
func (s *Store) Sealed() bool { return s.cfg.Key != nil }

// recordKey is name's key: identity names may hold '.', a KV key's token
// separator, and never '=', so '.' becomes '=' and a name is one token.
func recordKey(name string) string { return strings.ReplaceAll(name, ".", "=") }

func (s *Store) where(key string) string { return s.cfg.Bucket + "/" + key }

// Load returns name's record; an identity with no saved state is an
// empty record (Rev 0).
func (s *Store) Load(name string) (*identity.Record, error) {
	if err := identity.ValidName(name); err != nil {
		return nil, err
	}
	rec, _, _, err := s.get(context.Background(), name)
	return rec, err
}

// get reads name's record, whether it was sealed and its revision (0 when
// there is none).
func (s *Store) get(ctx context.Context, name string) (*identity.Record, bool, uint64, error) {
	key := recordKey(name)
	e, err := s.records.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return &identity.Record{Name: name, Logins: map[string]identity.Login{}}, false, 0, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, 0, ctx.Err()
		}
		return nil, false, 0, kvErr(s.where(key), "read", err)
	}
	rec, sealed, err := identity.Decode(name, e.Value(), s.cfg.Key)
	if err != nil {
		var ie *identity.Error
		if errors.As(err, &ie) && ie.Path == "" {
			ie.Path = s.where(key)
		}
		return nil, false, 0, err
	}
	return rec, sealed, e.Revision(), nil
}

// Update runs fn on name's record and writes the result when fn changed
// it (or it must be sealed now) if no other write came between: after a
// conflict it reads the record again and reruns fn, as long as ctx
// allows. It returns the record as stored.
func (s *Store) Update(ctx context.Context, name string, fn func(*identity.Record) error) (*identity.Record, error) {
	if err := identity.ValidName(name); err != nil {
		return nil, err
	}
	key := recordKey(name)
	for attempt := 0; ; attempt++ {
		rec, sealed, rev, err := s.get(ctx, name)
		if err != nil {
			return nil, err
		}
		before, _ := json.Marshal(rec)
		if err := fn(rec); err != nil {
			return nil, err
		}
		rec.Name = name
		after, _ := json.Marshal(rec)
		if bytes.Equal(before, after) && (sealed == s.Sealed() || rev == 0) {
			return rec, nil
		}
		rec.Rev++
		rec.Saved = time.Now().UTC()
		data, err := identity.Encode(rec, s.cfg.Key)
		if err != nil {
			return nil, &identity.Error{Code: identity.CodeIO, Path: s.where(key), Msg: "encode: " + err.Error(), Err: err}
		}
		if rev == 0 {
			_, err = s.records.Create(ctx, key, data)
		} else {
			_, err = s.records.Update(ctx, key, data, rev)
		}
		switch {
		case err == nil:
			return rec, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			return nil, kvErr(s.where(key), "write", err)
		}
		// Another write won: back off a little (jittered, so the losers
		// do not collide again in step) and start from its record.
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return nil, err
		}
	}
}

// backoff is a random wait under a cap that doubles with each conflict,
// from 1ms to 64ms.
func backoff(attempt int) time.Duration {
	limit := time.Millisecond << min(attempt, 6)
	return rand.N(limit) + time.Millisecond/2
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// kvErr is a NATS failure as a store error; NATS messages name subjects
// and codes, never a value.
func kvErr(where, what string, err error) error {
	return &identity.Error{Code: identity.CodeIO, Path: where, Msg: what + ": " + err.Error(), Err: err}
}
