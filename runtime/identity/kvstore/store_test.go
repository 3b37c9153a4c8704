package kvstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

func TestRoundTrip(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sealed=%v", sealed), func(t *testing.T) {
			srv := startServer(t)
			var key []byte
			if sealed {
				key = testKey(t)
			}
			a, b := openStore(t, srv, Config{Key: key}), openStore(t, srv, Config{Key: key})
			ctx := context.Background()
			for _, name := range []string{"alice", "ops.eu"} {
				if rec, err := a.Load(name); err != nil || rec.Rev != 0 || len(rec.State.Cookies) != 0 || rec.Logins == nil {
					t.Fatalf("Load(%s) before any save = %+v, %v; want an empty record", name, rec, err)
				}
				if _, err := a.Update(ctx, name, func(r *identity.Record) error {
					r.State = signedIn()
					r.Logins["login"] = identity.Login{At: time.Now().UTC(), Rev: 1}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				// Another worker reads what this one saved.
				rec, err := b.Load(name)
				if err != nil || rec.Rev != 1 || rec.Name != name || len(rec.State.Cookies) != 1 || rec.State.Cookies[0].Value != cookieValue ||
					rec.Logins["login"].Rev != 1 || rec.Saved.IsZero() {
					t.Fatalf("Load(%s) from another connection = %+v, %v", name, rec, err)
				}
				e, err := a.records.Get(ctx, recordKey(name))
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []string{cookieValue, "local-storage-token-42", "app.example"} {
					if got := bytes.Contains(e.Value(), []byte(v)); got == sealed {
						t.Errorf("the stored value holds %q: %v (sealed %v)", v, got, sealed)
					}
				}
				if r, err := b.Update(ctx, name, func(*identity.Record) error { return nil }); err != nil || r.Rev != 1 {
					t.Errorf("a no-op update = rev %d, %v; want 1 and no write", r.Rev, err)
				}
			}
			// A no-op update of an identity with no state writes nothing.
			if r, _ := a.Update(ctx, "nobody", func(*identity.Record) error { return nil }); r.Rev != 0 {
				t.Errorf("a no-op update of nobody wrote rev %d", r.Rev)
			}
			if _, err := a.records.Get(ctx, "nobody"); err == nil {
				t.Error("a no-op update of nobody stored a key")
			}
		})
	}
}

// TestSealingAClearRecord: a store with a key seals a record it finds in
// the clear on its next update, as the file store does.
func TestSealingAClearRecord(t *testing.T) {
	srv := startServer(t)
	clear := openStore(t, srv, Config{})
	ctx := context.Background()
	if _, err := clear.Update(ctx, "alice", func(r *identity.Record) error { r.State = signedIn(); return nil }); err != nil {
		t.Fatal(err)
	}
	sealed := openStore(t, srv, Config{Key: testKey(t)})
	r, err := sealed.Update(ctx, "alice", func(*identity.Record) error { return nil })
	if err != nil || r.Rev != 2 {
		t.Fatalf("sealing update = %+v, %v; want rev 2", r, err)
	}
	e, _ := sealed.records.Get(ctx, "alice")
	if bytes.Contains(e.Value(), []byte(cookieValue)) {
		t.Error("the record is still in the clear")
	}
	if _, err := clear.Load("alice"); !identity.IsCode(err, identity.CodeNeedKey) {
		t.Errorf("a store without the key reads the sealed record: %v", err)
	}
}

func TestErrors(t *testing.T) {
	srv := startServer(t)
	key := testKey(t)
	sealed := openStore(t, srv, Config{Key: key})
	ctx := context.Background()
	if _, err := sealed.Update(ctx, "alice", func(r *identity.Record) error { r.State = signedIn(); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := sealed.records.Put(ctx, "carol", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	e, _ := sealed.records.Get(ctx, "alice")
	if _, err := sealed.records.Put(ctx, "mallory", e.Value()); err != nil { // alice's record under another name
		t.Fatal(err)
	}
	_, js := connect(t, srv)
	open := func(cfg Config) error { _, err := Open(ctx, js, cfg); return err }
	tests := []struct {
		name string
		do   func() error
		code identity.Code
	}{
		{"wrong key", func() error { _, err := openStore(t, srv, Config{Key: testKey(t)}).Load("alice"); return err }, identity.CodeDecrypt},
		{"wrong key on update", func() error {
			_, err := openStore(t, srv, Config{Key: testKey(t)}).Update(ctx, "alice", func(*identity.Record) error { return nil })
			return err
		}, identity.CodeDecrypt},
		{"no key", func() error { _, err := openStore(t, srv, Config{}).Load("alice"); return err }, identity.CodeNeedKey},
		{"another identity's record", func() error { _, err := sealed.Load("mallory"); return err }, identity.CodeCorrupt},
		{"not a record", func() error { _, err := sealed.Load("carol"); return err }, identity.CodeCorrupt},
		{"bad name", func() error { _, err := sealed.Load("../etc"); return err }, identity.CodeBadName},
		{"bad name to lock", func() error { _, err := sealed.LockLogin(ctx, "Alice", "login"); return err }, identity.CodeBadName},
		{"bad provider", func() error { _, err := sealed.LockLogin(ctx, "alice", "log.in"); return err }, identity.CodeBadName},
		{"short key", func() error { return open(Config{Key: key[:16]}) }, identity.CodeBadKey},
		{"lock TTL under the minimum", func() error { return open(Config{LockTTL: 100 * time.Millisecond}) }, identity.CodeBadConfig},
		{"bad bucket name", func() error { return open(Config{Bucket: "a.b"}) }, identity.CodeBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if !identity.IsCode(err, tt.code) {
				t.Fatalf("err = %v, want %s", err, tt.code)
			}
			if strings.Contains(err.Error(), cookieValue) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString(key)) {
				t.Errorf("the error holds a value: %v", err)
			}
		})
	}
}

// TestConcurrentUpdatesMerge: workers on two connections each add one
// cookie at the same time; every one lands and Rev counts them.
func TestConcurrentUpdatesMerge(t *testing.T) {
	srv := startServer(t)
	key := testKey(t)
	stores := []*Store{openStore(t, srv, Config{Key: key}), openStore(t, srv, Config{Key: key})}
	const n = 24
	var calls atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d := identity.Diff(identity.State{}, identity.State{Cookies: []identity.Cookie{{Name: fmt.Sprintf("c%d", i), Value: "v", Domain: "x", Path: "/"}}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := stores[i%2].Update(ctx, "alice", func(r *identity.Record) error {
				calls.Add(1)
				r.State = d.Apply(r.State)
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	rec, err := stores[0].Load("alice")
	if err != nil || len(rec.State.Cookies) != n || rec.Rev != n {
		t.Fatalf("%d cookies, rev %d, %v; want %d", len(rec.State.Cookies), rec.Rev, err, n)
	}
	t.Logf("%d updates ran fn %d times (the rest were reruns after a conflict)", n, calls.Load())
}

func TestUpdateHonoursContext(t *testing.T) {
	srv := startServer(t)
	s := openStore(t, srv, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	if _, err := s.Update(ctx, "alice", func(*identity.Record) error { calls++; return nil }); err != context.Canceled || calls != 0 {
		t.Fatalf("Update with an ended context = %v (fn ran %d times)", err, calls)
	}
	// An fn error is returned as it is and nothing is written.
	boom := fmt.Errorf("boom")
	if _, err := s.Update(context.Background(), "alice", func(r *identity.Record) error { r.State = signedIn(); return boom }); err != boom {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	if rec, _ := s.Load("alice"); rec.Rev != 0 {
		t.Errorf("a failed fn wrote rev %d", rec.Rev)
	}
}
