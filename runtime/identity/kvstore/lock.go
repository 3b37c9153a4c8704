package kvstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

// lockPoll is how often a waiter tries the lock again (jittered by half
// either way). A waiter of a login waits seconds for it; a watch per
// waiter would cost the server a consumer each and still miss a lock that
// expired, which leaves no marker.
const lockPoll = 200 * time.Millisecond

// opTimeout bounds one refresh or the release, which run on no caller's
// context.
const opTimeout = 5 * time.Second

var providerRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// holding is what a lock key holds: who took it and when, for an operator
// reading the bucket. The lock is the key's existence and revision.
type holding struct {
	Holder string    `json:"holder"`
	Since  time.Time `json:"since"`
}

func holderName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// LockLogin holds the login lock of (name, provider) across every Store
// sharing the bucket until unlock is called, waiting as long as ctx
// allows. While held it is refreshed every LockTTL/3; a holder that dies
// (or cannot reach the server for LockTTL) loses it when the key expires.
// unlock may be called more than once.
func (s *Store) LockLogin(ctx context.Context, name, provider string) (unlock func(), err error) {
	if err := identity.ValidName(name); err != nil {
		return nil, err
	}
	if !providerRE.MatchString(provider) {
		return nil, &identity.Error{Code: identity.CodeBadName, Msg: fmt.Sprintf("login provider %q: use letters, digits, '_' and '-'", provider)}
	}
	key := recordKey(name) + "." + provider
	for {
		value, _ := json.Marshal(holding{Holder: s.holder, Since: time.Now().UTC()})
		rev, err := s.locks.Create(ctx, key, value)
		switch {
		case err == nil:
			return s.hold(key, value, rev), nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !errors.Is(err, jetstream.ErrKeyExists):
			return nil, kvErr(s.cfg.lockBucket()+"/"+key, "take the login lock", err)
		}
		if err := sleep(ctx, s.poll/2+rand.N(s.poll)); err != nil {
			return nil, err
		}
	}
}

// hold refreshes a taken lock until the returned unlock stops it and
// deletes the key, if it is still this holder's revision.
func (s *Store) hold(key string, value []byte, rev uint64) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.lockTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			next, err := s.locks.Update(ctx, key, value, rev)
			cancel()
			switch {
			case err == nil:
				rev = next
			case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyExists):
				return // it expired and another holder may have it now: not ours to refresh or delete
			}
			// Any other failure (the server unreachable): try again at
			// the next tick; the key expires if none gets through.
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			// A revision that moved on is another holder's lock; a delete
			// that fails leaves the key to expire.
			_ = s.locks.Delete(ctx, key, jetstream.LastRevision(rev))
		})
	}
}
