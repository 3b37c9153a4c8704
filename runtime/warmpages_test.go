package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// TestWarmPages: a page opened ahead is handed out once, each in its own
// context (a cookie set in one call is not seen by the next), and Close
// leaves no spare context behind.
func TestWarmPages(t *testing.T) {
	b := launch(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><link rel="icon" href="data:,">`))
	}))
	defer srv.Close()
	contexts := func() int {
		res, err := proto.TargetGetBrowserContexts{}.Call(b.Rod())
		if err != nil {
			t.Fatal(err)
		}
		return len(res.BrowserContextIDs)
	}
	base := contexts()
	w := NewWarmPages(ContextPages(b), 1)
	ctx := context.Background()
	seen := map[any]bool{}
	for i := range 3 {
		p, release, err := w.Pages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		id := p.Context()
		if seen[id] {
			t.Fatalf("call %d got a context already handed out", i)
		}
		seen[id] = true
		if err := p.Rod().Navigate(srv.URL); err != nil {
			t.Fatal(err)
		}
		v, err := p.Rod().Eval(`() => { const had = document.cookie; document.cookie = "k=v" + Math.random(); return had }`)
		if err != nil {
			t.Fatal(err)
		}
		if had := v.Value.Str(); had != "" {
			t.Fatalf("call %d saw a cookie of an earlier call: %q", i, had)
		}
		release()
	}
	// A spare is opened ahead: wait for it to be ready.
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		n := len(w.ready)
		w.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no page was opened ahead")
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.Close()
	if n := contexts(); n != base {
		t.Fatalf("%d browser contexts after Close, want %d (the spare and the released ones closed)", n, base)
	}
}
