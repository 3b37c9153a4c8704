package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/identity/kvstore"
)

// TestFleetSharesOneLogin: three workers, each with its own NATS
// connection, store and Identity (so nothing in-process is shared), run
// calls of one identity at once; one login serves them all, and after the
// site ends the session one login renews it for all of them.
func TestFleetSharesOneLogin(t *testing.T) {
	b := launch(t)
	site := newLoginSite(t)
	srv := natstest.Start(t, "", -1)
	k, _ := identity.NewKey()
	key, err := identity.KeyFromEnv(func(string) string { return k })
	if err != nil {
		t.Fatal(err)
	}
	const workers, callsEach = 3, 2
	var ds []*Dispatcher
	var last *kvstore.Store
	for range workers {
		nc, err := nats.Connect(srv.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, _ := jetstream.New(nc)
		st, err := kvstore.Open(context.Background(), js, kvstore.Config{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		last = st
		ds = append(ds, &Dispatcher{Registry: loginMacros(t, site, true), Pages: ContextPages(b), Identity: &Identity{Name: "alice", Store: st},
			Getenv: func(k string) string { return map[string]string{"SITE_PASSWORD": "alice-pw"}[k] }})
	}
	round := func(name string) {
		var wg sync.WaitGroup
		for w, d := range ds {
			for c := range callsEach {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out := d.Dispatch(context.Background(), Call{ID: fmt.Sprintf("%s-w%d-c%d", name, w, c), Name: "whoami"})
					if !out.OK || !strings.Contains(string(out.Result), `"alice"`) {
						t.Errorf("%s: worker %d call %d: %+v %s", name, w, c, out.Error, out.Result)
					}
				}()
			}
		}
		wg.Wait()
	}
	round("first")
	if n := site.logins.Load(); n != 1 {
		t.Fatalf("logins after %d concurrent calls on %d workers = %d, want 1", workers*callsEach, workers, n)
	}
	site.expire()
	round("expired")
	if n := site.logins.Load(); n != 2 {
		t.Fatalf("logins after the session ended = %d, want 2", n)
	}
	rec, err := last.Load("alice")
	if err != nil || rec.Logins["login"].Rev != 2 || len(rec.State.Cookies) == 0 {
		t.Fatalf("shared record = %+v, %v; want two logins on record and the session cookie", rec, err)
	}
}
