package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/identity"
)

// stateSite echoes the Cookie header it gets and counts its requests; a
// page of it can read and write localStorage and a cookie.
func stateSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "fresh", Value: "set-by-the-site-1234", Path: "/", HttpOnly: true})
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>state</title><pre id=cookie>%s</pre>`, r.Header.Get("Cookie"))
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

func newContext(t *testing.T) *Context {
	t.Helper()
	c, err := shared.NewContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func hostOf(u string) string { return strings.Split(strings.TrimPrefix(u, "http://"), ":")[0] }

func TestStorageStateRoundTrip(t *testing.T) {
	a, aHits := stateSite(t)
	b, bHits := stateSite(t)
	ctx := testCtx(t, 60*time.Second)
	exp := float64(time.Now().Add(time.Hour).Unix())
	want := identity.State{
		Cookies: []identity.Cookie{
			{Name: "sid", Value: "http-only-session-42", Domain: hostOf(a.URL), Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"},
			{Name: "pref", Value: "persistent-dark", Domain: hostOf(a.URL), Path: "/", Expires: exp},
		},
		Origins: []identity.Origin{
			{Origin: a.URL, LocalStorage: []identity.StorageItem{{Name: "token", Value: "origin-a-token"}}},
			{Origin: b.URL, LocalStorage: []identity.StorageItem{{Name: "token", Value: "origin-b-token"}}},
		},
	}
	c := newContext(t)
	if err := c.Restore(ctx, want); err != nil {
		t.Fatal(err)
	}
	if n := aHits.Load() + bHits.Load(); n != 0 {
		t.Fatalf("restoring localStorage reached the sites %d times", n)
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Rod().Context(ctx).Navigate(a.URL + "/"); err != nil {
		t.Fatal(err)
	}
	_ = p.Rod().Context(ctx).WaitLoad()
	sent, _ := p.Rod().Context(ctx).Eval(`() => document.getElementById("cookie").textContent`)
	if s := sent.Value.Str(); !strings.Contains(s, "sid=http-only-session-42") || !strings.Contains(s, "pref=persistent-dark") {
		t.Errorf("the site got cookies %q", s)
	}
	ls, _ := p.Rod().Context(ctx).Eval(`() => localStorage.getItem("token")`)
	if ls.Value.Str() != "origin-a-token" {
		t.Errorf("localStorage of a = %q", ls.Value.Str())
	}
	// The page changes things: a new cookie from the site, a storage item.
	if err := p.Rod().Context(ctx).Navigate(a.URL + "/set"); err != nil {
		t.Fatal(err)
	}
	_ = p.Rod().Context(ctx).WaitLoad()
	if _, err := p.Rod().Context(ctx).Eval(`() => localStorage.setItem("theme", "dark")`); err != nil {
		t.Fatal(err)
	}
	before := bHits.Load()
	got, err := c.StorageState(ctx, []string{b.URL})
	if err != nil {
		t.Fatal(err)
	}
	if bHits.Load() != before {
		t.Error("reading the localStorage of b reached b")
	}
	cookies := map[string]identity.Cookie{}
	for _, ck := range got.Cookies {
		cookies[ck.Name] = ck
	}
	if !cookies["sid"].HTTPOnly || !cookies["sid"].Session() || cookies["fresh"].Value != "set-by-the-site-1234" || int64(cookies["pref"].Expires) != int64(exp) {
		t.Errorf("cookies = %+v", got.Cookies)
	}
	wantOrigins := identity.State{Origins: []identity.Origin{
		{Origin: a.URL, LocalStorage: []identity.StorageItem{{Name: "theme", Value: "dark"}, {Name: "token", Value: "origin-a-token"}}},
		{Origin: b.URL, LocalStorage: []identity.StorageItem{{Name: "token", Value: "origin-b-token"}}},
	}}
	wantOrigins.Sort() // by origin: the ports decide which comes first
	if fmt.Sprint(got.Origins) != fmt.Sprint(wantOrigins.Origins) {
		t.Errorf("origins = %+v", got.Origins)
	}
}

func TestContextsRestoredApartStayApart(t *testing.T) {
	site, _ := stateSite(t)
	ctx := testCtx(t, 60*time.Second)
	seen := map[string]string{}
	for _, user := range []string{"alice", "bob"} {
		c := newContext(t)
		if err := c.Restore(ctx, identity.State{Cookies: []identity.Cookie{{Name: "sid", Value: user + "-session", Domain: hostOf(site.URL), Path: "/", Expires: -1}}}); err != nil {
			t.Fatal(err)
		}
		p, err := c.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Rod().Context(ctx).Navigate(site.URL); err != nil {
			t.Fatal(err)
		}
		_ = p.Rod().Context(ctx).WaitLoad()
		v, _ := p.Rod().Context(ctx).Eval(`() => document.getElementById("cookie").textContent`)
		seen[user] = v.Value.Str()
	}
	if seen["alice"] != "sid=alice-session" || seen["bob"] != "sid=bob-session" {
		t.Errorf("the site saw %q", seen)
	}
}

func TestUserContext(t *testing.T) {
	site, _ := stateSite(t)
	ctx := testCtx(t, 90*time.Second)
	if _, err := Launch(ctx, Options{UserContext: true}); !IsCode(err, CodeBrowser) {
		t.Fatalf("UserContext without a ControlURL: %v", err)
	}
	// The user's browser: another Chromium, reached over CDP.
	own, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	// The user's own window stays open, as it does in a real session
	// (Chromium drops session cookies when a profile's last tab closes).
	if _, err := own.Rod().Page(proto.TargetCreateTarget{URL: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	visit := func() string {
		b, err := Connect(ctx, own.ControlURL(), Options{UserContext: true})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		c, err := b.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Shared() {
			t.Error("a UserContext context is not shared")
		}
		if err := c.Restore(ctx, identity.State{}); err == nil {
			t.Error("Restore into the user's own browser was allowed")
		}
		p, err := c.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Rod().Context(ctx).Navigate(site.URL + "/set"); err != nil {
			t.Fatal(err)
		}
		_ = p.Rod().Context(ctx).WaitLoad()
		v, _ := p.Rod().Context(ctx).Eval(`() => document.getElementById("cookie").textContent`)
		return v.Value.Str()
	}
	if got := visit(); got != "" {
		t.Fatalf("first visit sent cookies %q", got)
	}
	// The second connection sees the cookie the first left in the user's
	// profile, and the browser outlived both.
	if got := visit(); got != "fresh=set-by-the-site-1234" {
		t.Fatalf("second visit sent %q", got)
	}
}
