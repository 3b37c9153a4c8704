package engine

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"
)

func init() {
	route("/api/act/submit", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>submitted</title><h1 id="thanks">Thanks %s</h1><p id="method">%s</p>`,
			html.EscapeString(r.Form.Get("name")), r.Method)
	})
	route("/api/act/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>slow</title><h1>Slow</h1>`)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		time.Sleep(300 * time.Millisecond) // the document's load event waits for this
		fmt.Fprint(w, `<img src="/api/act/slowimg"><p id="done">done</p>`)
	})
	route("/api/act/nocontent", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	route("/api/act/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
		_, _ = w.Write([]byte("data"))
	})
	route("/api/act/hang", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>hang</title><h1 id="hang">Hanging image below</h1><img src="/api/act/hangimg">`)
	})
	route("/api/act/hangimg", func(w http.ResponseWriter, r *http.Request) {
		// Never answers while the page lives.
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	route("/api/act/slowimg", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
}

func TestActClickNavigation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css   string
		wantURL     string // substring of the new URL
		wantSelDone string // element that must exist in the new document
		sameDoc     bool
	}{
		{"submit form", "#send", "/api/act/submit", "#thanks", false},
		{"plain link", "#plain", "act_popup.html?from=plain", "#from", false},
		{"scripted location", "#js", "act_popup.html?from=js", "#from", false},
		{"slow document", "#slow", "/api/act/slow", "#done", false},
		{"hash link", "#hash", "#bottom", "#bottom", true},
		{"pushState", "#push", "act_nav.html?view=2", "#top", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_nav.html")
			res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, tc.css), ActOptions{}))
			if !res.Navigated || !strings.Contains(res.URL, tc.wantURL) || res.SameDocument != tc.sameDoc {
				t.Fatalf("navigated=%v url=%q sameDoc=%v notes=%v; want url containing %q sameDoc=%v",
					res.Navigated, res.URL, res.SameDocument, res.Notes, tc.wantURL, tc.sameDoc)
			}
			if res.Channel != ChannelCDP || res.Point == nil || res.Hit == nil {
				t.Fatalf("missing input evidence: %+v", res)
			}
			// The click returned after the new document loaded.
			if got := actJS(t, ctx, p, `document.readyState + ' ' + !!document.querySelector('`+tc.wantSelDone+`')`); got != "complete true" {
				t.Fatalf("after click: %q", got)
			}
			if !tc.sameDoc && res.Status != 200 {
				t.Fatalf("status %d", res.Status)
			}
		})
	}
}

func TestActClickSubmitShowsResult(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_nav.html")
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#send"), ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('thanks').textContent + ' ' + document.getElementById('method').textContent`); got != "Thanks Ada POST" {
		t.Fatalf("result page: %q (res %+v)", got, res)
	}
}

// A new document whose load event never fires (a hanging image): the click
// returns after DOMContentLoaded once actLoadWait has passed, not at the
// deadline.
func TestActClickNavigationHangingLoad(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_nav.html")
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#hang"), ActOptions{}))
	if !res.Navigated || !strings.HasSuffix(res.URL, "/api/act/hang") || !strings.Contains(strings.Join(res.Notes, ";"), "DOMContentLoaded") {
		t.Fatalf("navigated=%v url=%q notes=%v", res.Navigated, res.URL, res.Notes)
	}
	if got := actJS(t, ctx, p, `document.getElementById('hang').textContent`); got != "Hanging image below" {
		t.Fatalf("new document %q", got)
	}
}

// Navigations that start but never commit a new document: the click
// returns once the browser stops loading, not after a timeout.
func TestActClickNavigationThatDoesNotCommit(t *testing.T) {
	t.Parallel()
	for _, css := range []string{"#nocontent", "#download", "#mailto"} {
		t.Run(css, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_nav.html")
			res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, css), ActOptions{}))
			if res.Navigated || res.Duration >= actPopupWait || !strings.Contains(strings.Join(res.Notes, ";"), "did not commit") {
				t.Fatalf("navigated=%v after %s, notes %v", res.Navigated, res.Duration, res.Notes)
			}
			if u, _ := p.URL(ctx); !strings.HasSuffix(u, "/act_nav.html") {
				t.Fatalf("page moved to %s", u)
			}
		})
	}
}
