package engine

import (
	"strings"
	"testing"
	"time"
)

func TestActClickPopup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ css, from string }{{"#newtab", "link"}, {"#winopen", "open"}} {
		t.Run(tc.from, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_nav.html")
			res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, tc.css), ActOptions{}))
			if res.Popup == nil {
				t.Fatalf("no popup: %+v", res)
			}
			if !strings.Contains(res.PopupURL, "from="+tc.from) {
				t.Fatalf("popup url %q", res.PopupURL)
			}
			if res.Navigated {
				t.Fatalf("opener navigated: %+v", res)
			}
			// The popup is a usable page: loaded, with its agent.
			if got := actJS(t, ctx, res.Popup, `document.getElementById('from').textContent`); got != tc.from {
				t.Fatalf("popup content %q", got)
			}
			u, _ := res.Popup.URL(ctx)
			if !strings.Contains(u, "act_popup.html") {
				t.Fatalf("popup URL() = %q", u)
			}
			b := actEl(t, ctx, res.Popup, "h1")
			if b.Ref == 0 {
				t.Fatal("no agent in popup")
			}
		})
	}
}

// TestPopupTabs covers what the runtime's tabs rest on: a tab behind a
// popup is hidden until Activate, a popup that closes itself ends
// UntilClosed's context and reads Closed, and WaitOpened fails with
// no_popup when nothing opened.
func TestPopupTabs(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_nav.html")
	n := len(p.Popups())
	start := time.Now()
	_, err := p.WaitOpened(ctx, n, 300*time.Millisecond)
	if e := actWantCode(t, err, CodeNoPopup); time.Since(start) > 2*time.Second {
		t.Fatalf("WaitOpened took %v: %v", time.Since(start), e)
	}
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#winopen"), ActOptions{}))
	pop := res.Popup
	if pop == nil {
		t.Fatalf("no popup: %+v", res)
	}
	if got, err := p.WaitOpened(ctx, n, time.Second); err != nil || got != pop {
		t.Fatalf("WaitOpened = %p, %v; want the popup %p", got, err, pop)
	}
	visibility := func(pg *Page) string { return actJS(t, ctx, pg, `document.visibilityState`) }
	if v := visibility(p); v != "hidden" {
		t.Logf("opener behind the popup is %q (expected hidden)", v)
	}
	if err := p.Activate(ctx); err != nil {
		t.Fatal(err)
	}
	if v := visibility(p); v != "visible" {
		t.Fatalf("opener after Activate is %q", v)
	}
	if p.Closed(ctx) || pop.Closed(ctx) {
		t.Fatal("a page reads closed while open")
	}
	wctx, cancel := pop.UntilClosed(ctx)
	defer cancel()
	actJS(t, ctx, pop, `(setTimeout(() => window.close(), 100), 'ok')`)
	select {
	case <-wctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("UntilClosed's context did not end when the popup closed itself")
	}
	if !pop.Closed(ctx) {
		t.Fatal("the popup that closed itself does not read closed")
	}
	if p.Closed(ctx) {
		t.Fatal("the opener reads closed")
	}
}
