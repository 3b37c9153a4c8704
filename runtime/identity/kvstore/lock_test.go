package kvstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestLoginLockExcludes: holders on two connections contend for one lock;
// never two at once, and every one gets it.
func TestLoginLockExcludes(t *testing.T) {
	srv := startServer(t)
	stores := []*Store{openStore(t, srv, Config{}), openStore(t, srv, Config{})}
	const holders, rounds = 6, 4
	var active, most, taken atomic.Int32
	var wg sync.WaitGroup
	for i := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				unlock, err := stores[i%2].LockLogin(ctx, "alice", "login")
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
				n := active.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(5 * time.Millisecond)
				active.Add(-1)
				taken.Add(1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 || taken.Load() != holders*rounds {
		t.Fatalf("at most %d holders at once, %d of %d rounds; want 1 and all", most.Load(), taken.Load(), holders*rounds)
	}
	// Other identities and providers have locks of their own.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, k := range [][2]string{{"alice", "login"}, {"alice", "sso"}, {"bob", "login"}, {"alice.x", "login"}} {
		unlock, err := stores[0].LockLogin(ctx, k[0], k[1])
		if err != nil {
			t.Fatalf("lock %v while the others are held: %v", k, err)
		}
		defer unlock()
	}
}

func TestLoginLockHonoursContext(t *testing.T) {
	srv := startServer(t)
	a, b := openStore(t, srv, Config{}), openStore(t, srv, Config{})
	unlock, err := a.LockLogin(context.Background(), "alice", "login")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := b.LockLogin(ctx, "alice", "login"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second holder got the lock: %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the waiter gave up %v after its deadline", el-300*time.Millisecond)
	}
	unlock()
	unlock() // twice is harmless
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	u2, err := b.LockLogin(ctx2, "alice", "login")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	u2()
}

// TestDeadHolderExpires: a worker whose connection dies holding the lock
// never unlocks; the lock is the other's one TTL later.
func TestDeadHolderExpires(t *testing.T) {
	srv := startServer(t)
	cfg := Config{LockTTL: time.Second}
	nc, js := connect(t, srv)
	dead, err := Open(context.Background(), js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dead.LockLogin(context.Background(), "alice", "login"); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	other := openStore(t, srv, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	unlock, err := other.LockLogin(ctx, "alice", "login")
	if err != nil {
		t.Fatalf("the dead holder's lock never expired: %v", err)
	}
	defer unlock()
	el := time.Since(start)
	t.Logf("taken %v after the holder died (TTL %v)", el, other.LockTTL())
	if el < other.LockTTL()/2 {
		t.Errorf("taken after %v, before the dead holder's TTL", el)
	}
}

// TestRefreshKeepsLongHolder: a holder that keeps its lock for three TTLs
// keeps it all along; the waiter gets it once it unlocks.
func TestRefreshKeepsLongHolder(t *testing.T) {
	srv := startServer(t)
	cfg := Config{LockTTL: time.Second}
	a, b := openStore(t, srv, cfg), openStore(t, srv, cfg)
	unlock, err := a.LockLogin(context.Background(), "alice", "login")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*a.LockTTL())
	defer cancel()
	if _, err := b.LockLogin(ctx, "alice", "login"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the waiter got a held lock after its TTL: %v", err)
	}
	h, err := a.locks.History(context.Background(), "alice.login")
	if err != nil || len(h) != 1 || h[0].Revision() < 3 {
		t.Errorf("lock history = %d entries, %v; want one, refreshed at least twice", len(h), err)
	}
	unlock()
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	u2, err := b.LockLogin(ctx2, "alice", "login")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	u2()
}

// TestExistingBucketKeepsItsTTL: a worker opening the buckets with
// another LockTTL uses the lock bucket's.
func TestExistingBucketKeepsItsTTL(t *testing.T) {
	srv := startServer(t)
	first := openStore(t, srv, Config{LockTTL: time.Second})
	second := openStore(t, srv, Config{LockTTL: time.Minute})
	if first.LockTTL() != time.Second || second.LockTTL() != time.Second {
		t.Fatalf("lock TTLs %v and %v, want the bucket's 1s for both", first.LockTTL(), second.LockTTL())
	}
	st, err := second.records.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.History() != 1 || st.TTL() != 0 || st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Storage != jetstream.FileStorage {
		t.Errorf("records bucket: history %d, ttl %v", st.History(), st.TTL())
	}
}
