package identity

import "context"

// Keeper is what the runtime needs of an identity store: [Store] keeps
// identities in files on one machine, runtime/identity/kvstore in a NATS
// JetStream bucket a fleet of workers shares.
type Keeper interface {
	// Load returns name's record; an identity with no saved state is an
	// empty record (Rev 0).
	Load(name string) (*Record, error)
	// Update changes name's record with fn and returns it as stored; a
	// write bumps Rev and sets Saved, and an fn that changed nothing
	// writes nothing. fn may run more than once (a store with optimistic
	// concurrency reruns it on a fresh record after a conflict), so it
	// must change only the record it is given.
	Update(ctx context.Context, name string, fn func(*Record) error) (*Record, error)
	// LockLogin holds the login lock of (name, provider) against every
	// other holder sharing the store until unlock is called, waiting as
	// long as ctx allows: one login per identity and provider at a time.
	LockLogin(ctx context.Context, name, provider string) (unlock func(), err error)
}

var _ Keeper = (*Store)(nil)
