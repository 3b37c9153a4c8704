package engine

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

func init() {
	route("/api/wait/slow", func(w http.ResponseWriter, r *http.Request) {
		if !verifySleep(r, r.URL.Query().Get("ms")) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	// A 1x1 transparent GIF after ms milliseconds.
	route("/api/wait/slowimg", func(w http.ResponseWriter, r *http.Request) {
		if !verifySleep(r, r.URL.Query().Get("ms")) {
			return
		}
		w.Header().Set("Content-Type", "image/gif")
		w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
}

// waitRequests returns the page's requests whose URL contains s.
func waitRequests(p *Page, s string) []Request {
	var out []Request
	for _, r := range p.Requests(0) {
		if strings.Contains(r.URL, s) {
			out = append(out, r)
		}
	}
	return out
}

// waitReadyState reads document.readyState.
func waitReadyState(t *testing.T, p *Page) string {
	t.Helper()
	res, err := p.Rod().Context(testCtx(t, 5*time.Second)).Eval(`() => document.readyState`)
	if err != nil {
		t.Fatal(err)
	}
	return res.Value.Str()
}

// navigateNoWait starts a navigation without waiting for anything.
func navigateNoWait(t *testing.T, p *Page, path string) {
	t.Helper()
	if _, err := (proto.PageNavigate{URL: fixtureURL(path)}).Call(p.Rod().Context(testCtx(t, 5*time.Second))); err != nil {
		t.Fatal(err)
	}
}

// TestWaitReadyXHR: after load the page makes a request and, chained off
// its answer, a second one; WaitReady returns only once both are done.
func TestWaitReadyXHR(t *testing.T) {
	t.Parallel()
	p := verifyOpen(t, "wait_ready.html") // Goto returns at the load event
	if err := p.WaitReady(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	reqs := waitRequests(p, "/api/wait/slow")
	if len(reqs) != 2 {
		t.Fatalf("want both chained requests seen, got %+v", reqs)
	}
	for _, r := range reqs {
		if !r.Done || r.Status != 200 {
			t.Errorf("request not finished when WaitReady returned: %+v", r)
		}
	}
}

// TestWaitReadyState: WaitReady waits for readyState "complete" (a slow
// image holds it at "interactive").
func TestWaitReadyState(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	navigateNoWait(t, p, "wait_image.html")
	if err := p.WaitReady(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := waitReadyState(t, p); s != "complete" {
		t.Fatalf("readyState %q after WaitReady", s)
	}
	if rs := waitRequests(p, "/api/wait/slowimg"); len(rs) != 1 || !rs[0].Done {
		t.Fatalf("image request: %+v", rs)
	}
}

// TestWaitReadyAcrossNavigation: the document waited on is replaced by a
// script; WaitReady follows to the new one and waits for its requests, but
// not for the fetch the old document abandoned.
func TestWaitReadyAcrossNavigation(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	navigateNoWait(t, p, "wait_redirect.html")
	// Well under the abandoned fetch's 8 s: it must not be waited for.
	if err := p.WaitReady(testCtx(t, 6*time.Second)); err != nil {
		t.Fatal(err)
	}
	u, err := p.URL(testCtx(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(u, "/wait_ready.html") {
		t.Fatalf("url %s: WaitReady returned on the replaced document", u)
	}
	if s := waitReadyState(t, p); s != "complete" {
		t.Fatalf("readyState %q", s)
	}
	// Chromium never reports the end of a fetch a navigation abandoned;
	// the page settles it so in-flight counts cannot leak.
	if ab := waitRequests(p, "abandoned=1"); len(ab) != 1 || !ab[0].Done || !strings.HasPrefix(ab[0].Failed, "abandoned") {
		t.Fatalf("the old document's fetch should be seen and settled as abandoned: %+v", ab)
	}
	if reqs := waitRequests(p, "&n="); len(reqs) != 2 || !reqs[0].Done || !reqs[1].Done {
		t.Fatalf("requests of the new document: %+v", reqs)
	}
}

// TestWaitReadyTimeout: a request that never finishes in time makes
// WaitReady fail with CodeTimeout naming it.
func TestWaitReadyTimeout(t *testing.T) {
	t.Parallel()
	p := verifyOpen(t, "wait_hang.html")
	err := p.WaitReady(testCtx(t, 2*time.Second)) // the request takes 5 s
	if !IsCode(err, CodeTimeout) {
		t.Fatalf("want timeout, got %v", err)
	}
	if !strings.Contains(err.Error(), "/api/wait/slow?ms=5000") {
		t.Fatalf("error should name the pending request: %v", err)
	}
}

// TestWaitReadyIdlePage: an idle page is ready at once, and a closed one is
// an error, not a hang.
func TestWaitReadyIdlePage(t *testing.T) {
	t.Parallel()
	p := verifyOpen(t, "verify_basic.html")
	if err := p.WaitReady(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
	if err := p.WaitReady(testCtx(t, 5*time.Second)); err == nil {
		t.Fatal("WaitReady on a closed page succeeded")
	}
}
