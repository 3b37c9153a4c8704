package kvstore

import (
	"time"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

// Config names a store's bucket, its seal key and its login lock's TTL.
// The zero value is the default store, in the clear.
type Config struct {
	// Bucket is the KV bucket records are kept in (default
	// MACROKIT_IDENTITIES); login locks are in Bucket + "_LOCKS".
	Bucket string
	// Key seals records with AES-256-GCM: 32 bytes (identity.KeyFromEnv),
	// nil for records in the clear. Every worker sharing the bucket needs
	// the same key.
	Key []byte
	// LockTTL is how long a login lock outlives its holder's last refresh
	// (default 20s, at least MinLockTTL); a holder refreshes it every
	// LockTTL/3. It is the lock bucket's TTL, set by the Open that
	// creates the bucket: a bucket that exists keeps its own.
	LockTTL time.Duration
}

// Defaults and limits.
const (
	DefaultBucket  = "MACROKIT_IDENTITIES"
	DefaultLockTTL = 20 * time.Second
	// MinLockTTL keeps the refresh (every TTL/3) well above a round trip.
	MinLockTTL = time.Second
)

func (c Config) withDefaults() (Config, error) {
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.LockTTL == 0 {
		c.LockTTL = DefaultLockTTL
	}
	if c.Key != nil && len(c.Key) != 32 {
		return c, &identity.Error{Code: identity.CodeBadKey, Msg: "the identity key must be 32 bytes"}
	}
	if c.LockTTL < MinLockTTL {
		return c, &identity.Error{Code: identity.CodeBadConfig, Msg: "the login lock TTL must be at least " + MinLockTTL.String()}
	}
	return c, nil
}

// lockBucket is where the login locks are.
func (c Config) lockBucket() string { return c.Bucket + "_LOCKS" }
