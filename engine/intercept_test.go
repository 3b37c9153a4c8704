package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hookSite is a page that follows a redirect, POSTs JSON and shows the
// answer, on its own server so its requests can be counted.
func hookSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cret-session", Path: "/", HttpOnly: true})
		http.SetCookie(w, &http.Cookie{Name: "pref", Value: "dark", Path: "/"})
		http.Redirect(w, r, "/page?b=2&a=1", http.StatusSeeOther)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><link rel="icon" href="data:,"><p id="out">waiting</p><script>
fetch("/api", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({n: 1})})
  .then(r => r.json()).then(d => { document.getElementById("out").textContent = "got " + d.answer + " " + (document.cookie || "no-js-cookie") },
        e => { document.getElementById("out").textContent = "network error" });
</script>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if _, err := r.Cookie("sid"); err != nil || string(body) != `{"n":1}` {
			w.WriteHeader(http.StatusBadRequest)
		}
		io.WriteString(w, `{"answer":42}`)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func outText(ctx context.Context, t *testing.T, p *Page, want string) string {
	t.Helper()
	var s string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v, err := p.Rod().Context(ctx).Eval(`() => document.getElementById("out") ? document.getElementById("out").textContent : ""`)
		if err == nil {
			s = v.Value.Str()
		}
		if s != "waiting" && s != "" {
			break
		}
	}
	return s
}

// TestNetworkHookRecordsAndServes: Observe sees every exchange of a page
// (the redirect, the document, the POST with its body) and Serve answers
// the same page from them with the site's server never hit; a request Serve
// refuses fails in the page as a network error would.
func TestNetworkHookRecordsAndServes(t *testing.T) {
	srv, hits := hookSite(t)
	ctx := testCtx(t, 60*time.Second)

	type ex struct {
		req  HookedRequest
		resp HookedResponse
	}
	var mu sync.Mutex
	var seen []ex
	c := newContext(t)
	if err := c.SetNetworkHook(ctx, &NetworkHook{Observe: func(p *Page, r HookedRequest, resp HookedResponse) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ex{r, resp})
	}}); err != nil {
		t.Fatal(err)
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, srv.URL+"/start"); err != nil {
		t.Fatal(err)
	}
	if got := outText(ctx, t, p, ""); got != "got 42 pref=dark" {
		t.Fatalf("live page shows %q", got)
	}
	mu.Lock()
	recorded := append([]ex(nil), seen...)
	mu.Unlock()
	byURL := map[string]ex{}
	for _, e := range recorded {
		byURL[e.req.Method+" "+strings.TrimPrefix(e.req.URL, srv.URL)] = e
	}
	if len(recorded) != 3 {
		t.Fatalf("observed %d exchanges: %+v", len(recorded), recorded)
	}
	e := byURL["GET /start"]
	cookies := p.SetCookieHeaders(e.req.NetworkID, e.req.Hop)
	if e.resp.Status != 303 || e.resp.Header.Get("Location") != "/page?b=2&a=1" || len(cookies) != 2 || !strings.HasPrefix(cookies[0], "sid=s3cret-session") {
		t.Errorf("redirect %+v, cookies %q", e.resp, cookies)
	}
	if e := byURL["GET /page?b=2&a=1"]; e.req.Hop != 1 || e.req.NetworkID != byURL["GET /start"].req.NetworkID || len(p.SetCookieHeaders(e.req.NetworkID, e.req.Hop)) != 0 {
		t.Errorf("the redirect's second hop %+v", e.req)
	}
	for _, c := range cookies {
		e.resp.Header.Add("Set-Cookie", c)
	}
	byURL["GET /start"] = e
	if e := byURL["GET /page?b=2&a=1"]; e.resp.Status != 200 || e.req.Type != "Document" || !strings.Contains(string(e.resp.Body), `id="out"`) {
		t.Errorf("document %+v", e)
	}
	if e := byURL["POST /api"]; e.resp.Status != 200 || string(e.req.Body) != `{"n":1}` || string(e.resp.Body) != `{"answer":42}` {
		t.Errorf("api %+v %q %q", e, e.req.Body, e.resp.Body)
	}

	for _, tc := range []struct {
		name, refuse, want string
	}{
		{"replay", "", "got 42 pref=dark"},
		{"miss", "POST /api", "network error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hits.Load()
			var served atomic.Int64
			c := newContext(t)
			if err := c.SetNetworkHook(ctx, &NetworkHook{Serve: func(_ context.Context, _ *Page, r HookedRequest) (*HookedResponse, error) {
				k := r.Method + " " + strings.TrimPrefix(r.URL, srv.URL)
				e, ok := byURL[k]
				if !ok || k == tc.refuse {
					return nil, errors.New("not recorded")
				}
				served.Add(1)
				return &e.resp, nil
			}}); err != nil {
				t.Fatal(err)
			}
			p, err := c.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_ = p.Goto(ctx, srv.URL+"/start")
			if got := outText(ctx, t, p, ""); got != tc.want {
				t.Errorf("page shows %q, want %q", got, tc.want)
			}
			if n := hits.Load() - before; n != 0 {
				t.Errorf("the server got %d requests", n)
			}
			if served.Load() < 2 {
				t.Errorf("served %d", served.Load())
			}
		})
	}
}

// TestNetworkHookHoldsWhileClosing: a page under a Serve hook that is still
// loading when it is closed (a module graph mid-import, a poll every few
// milliseconds, as a test's page is when its call ends early) sends nothing
// to the network. Chromium stops pausing a page's requests before the page
// stops making them, so Close must first take the page off its document.
func TestNetworkHookHoldsWhileClosing(t *testing.T) {
	var hits atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Logf("reached the site: %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(site.Close)
	ctx := testCtx(t, 90*time.Second)
	var served atomic.Int64
	hook := &NetworkHook{Serve: func(_ context.Context, _ *Page, r HookedRequest) (*HookedResponse, error) {
		served.Add(1)
		path := strings.TrimPrefix(r.URL, site.URL)
		switch {
		case path == "/":
			return &HookedResponse{Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<!doctype html>
<link rel="icon" href="/icon.svg"><script type="module" src="/m0.js"></script><p id="out">waiting</p>
<script>setInterval(() => fetch("/poll?" + Date.now()).catch(() => {}), 2)</script>`)}, nil
		case strings.HasPrefix(path, "/m") && strings.HasSuffix(path, ".js"):
			var n int
			_, _ = fmt.Sscanf(path, "/m%d.js", &n)
			return &HookedResponse{Header: http.Header{"Content-Type": {"text/javascript"}},
				Body: []byte(fmt.Sprintf(`import "./m%d.js"; export const x = %d;`, n+1, n))}, nil
		case path == "/icon.svg":
			return &HookedResponse{Header: http.Header{"Content-Type": {"image/svg+xml"}}, Body: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)}, nil
		}
		return &HookedResponse{Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("ok")}, nil
	}}
	for i := range 6 {
		c, err := shared.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetNetworkHook(ctx, hook); err != nil {
			t.Fatal(err)
		}
		p, err := c.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		before := served.Load()
		go func() { _ = p.Goto(ctx, site.URL+"/") }()
		for served.Load() < before+3+int64(i) && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // a request let go at the close arrives within a few ms
	if n := hits.Load(); n != 0 || served.Load() == 0 {
		t.Errorf("%d request(s) reached the site while pages under a Serve hook closed (%d served)", n, served.Load())
	}
}
