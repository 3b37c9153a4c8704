package engine

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
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

// actPage opens a fixture in a fresh page.
func actPage(t *testing.T, fixture string) (*Page, context.Context) {
	t.Helper()
	p := newTestPage(t)
	ctx := testCtx(t, 40*time.Second)
	if err := p.Goto(ctx, fixtureURL(fixture)); err != nil {
		t.Fatal(err)
	}
	return p, ctx
}

// actEl resolves a CSS target through grounding.
func actEl(t *testing.T, ctx context.Context, p *Page, css string) *Element {
	t.Helper()
	e, err := p.Resolve(ctx, Target{CSS: css})
	if err != nil {
		t.Fatalf("resolve %s: %v", css, err)
	}
	return e
}

// actJS evaluates an expression in the page and returns it as a string.
func actJS(t *testing.T, ctx context.Context, p *Page, expr string) string {
	t.Helper()
	var s any
	if err := p.evalJSON(ctx, &s, `() => { const v = (`+expr+`); return v == null ? '' : v; }`); err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	return fmt.Sprint(s)
}

func actWantCode(t *testing.T, err error, code Code) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if !IsCode(err, code) {
		t.Fatalf("error %v, want code %s", err, code)
	}
	e, _ := err.(*Error)
	return e
}

// actMust returns a checker that fails the test on an action error.
func actMust(t *testing.T) func(*ActResult, error) *ActResult {
	return func(res *ActResult, err error) *ActResult {
		t.Helper()
		if err != nil {
			t.Fatalf("action failed: %v (result %+v)", err, res)
		}
		if res == nil {
			t.Fatal("nil result")
		}
		return res
	}
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

func TestActClickNoEffectIsQuick(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_nav.html")
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#noop"), ActOptions{}))
	if res.Navigated || res.Popup != nil {
		t.Fatalf("unexpected navigation/popup: %+v", res)
	}
	if got := actJS(t, ctx, p, `document.getElementById('top').textContent`); got != "Clicked" {
		t.Fatalf("click had no effect: %q", got)
	}
	// It did not wait out a popup or navigation bound.
	if res.Duration >= actPopupWait || len(res.Notes) > 0 {
		t.Fatalf("click without navigation took %s (notes %v)", res.Duration, res.Notes)
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

func TestActClickOccludedThenDismissed(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_overlay.html")
	buy := actEl(t, ctx, p, "#buy")
	res, err := p.Click(ctx, buy, ActOptions{Wait: 300 * time.Millisecond})
	e := actWantCode(t, err, CodeOccluded)
	if !strings.Contains(e.Msg, "Cookie consent") {
		t.Fatalf("occluder not named: %v", e)
	}
	if res == nil || res.Actionability == nil || res.Actionability.Hit == nil || res.Actionability.Hit.Name != "Cookie consent" {
		t.Fatalf("occluder evidence: %+v", res)
	}
	if a := res.Actionability; !a.Visible || !a.Enabled || a.ReceivesPointer || a.Point == nil {
		t.Fatalf("actionability report: %+v", a)
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "idle" {
		t.Fatalf("occluded click went through: %q", got)
	}
	actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#dismiss"), ActOptions{}))
	res = actMust(t)(p.Click(ctx, buy, ActOptions{}))
	if res.Hit == nil || res.Hit.Tag != "button" {
		t.Fatalf("hit evidence: %+v", res.Hit)
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "bought" {
		t.Fatalf("status %q", got)
	}
}

func TestActClickGuardBlocksMisdirectedClick(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_overlay.html")
	actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#dismiss"), ActOptions{}))
	// The promo appears only once the pointer moves onto the button: the
	// pre-input hit test passes, the press lands on the promo.
	res, err := p.Click(ctx, actEl(t, ctx, p, "#bait"), ActOptions{Wait: 400 * time.Millisecond})
	e := actWantCode(t, err, CodeOccluded)
	if !strings.Contains(e.Msg, "Spring sale") || res.Hit == nil || res.Hit.Name != "Spring sale" {
		t.Fatalf("error %v, hit %+v", e, res.Hit)
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "idle" {
		t.Fatalf("a misdirected click reached the page: %q", got)
	}
	if a := res.Actionability; a == nil || a.OK || a.Hit == nil || a.Hit.Name != "Spring sale" {
		t.Fatalf("actionability report does not name the occluder: %+v", a)
	}
	if !strings.Contains(strings.Join(res.Notes, ";"), "blocked it") {
		t.Fatalf("the guard did not intercept: notes %v", res.Notes)
	}
}

func TestActClickDOMChannelPastOverlay(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_overlay.html")
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#buy"), ActOptions{Channel: ChannelDOM}))
	if res.Channel != ChannelDOM {
		t.Fatalf("channel %s", res.Channel)
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "bought" {
		t.Fatalf("status %q", got)
	}
}

func TestActClickNotInteractable(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_form.html")
	for _, css := range []string{"#disabled", "#aria-disabled"} {
		res, err := p.Click(ctx, actEl(t, ctx, p, css), ActOptions{Wait: 200 * time.Millisecond})
		e := actWantCode(t, err, CodeNotInteractable)
		if !strings.Contains(e.Msg, "disabled") || res == nil || res.Actionability == nil || res.Actionability.Enabled {
			t.Fatalf("%s: %v %+v", css, e, res)
		}
	}
	// Detached element.
	b := actEl(t, ctx, p, "#submit")
	actJS(t, ctx, p, `document.getElementById('submit').remove()`)
	_, err := p.Click(ctx, b, ActOptions{})
	actWantCode(t, err, CodeNotFound)
	_, err = p.Click(ctx, nil, ActOptions{})
	actWantCode(t, err, CodeInvalid)
	// The diagnosis on its own, as the failure handler asks for it.
	rep, err := p.Actionable(ctx, actEl(t, ctx, p, "#disabled"), vocab.ActClick)
	if !IsCode(err, CodeNotInteractable) || rep == nil || rep.Enabled || !rep.Visible {
		t.Fatalf("Actionable: %+v %v", rep, err)
	}
}

func TestActClickFlakyFirstClick(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_flaky.html")
	b := actEl(t, ctx, p, "#flaky")
	actMust(t)(p.Click(ctx, b, ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "unsaved" {
		t.Fatalf("first click: %q", got)
	}
	actMust(t)(p.Click(ctx, b, ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "saved" {
		t.Fatalf("second click: %q", got)
	}
}

func TestActClickWaitsForTransients(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_transient.html")
	under, late, moving := actEl(t, ctx, p, "#under"), actEl(t, ctx, p, "#late"), actEl(t, ctx, p, "#moving")
	actJS(t, ctx, p, `startTransients()`)
	for _, e := range []*Element{under, late, moving} {
		res := actMust(t)(p.Click(ctx, e, ActOptions{}))
		if !res.Actionability.Stable || !res.Actionability.ReceivesPointer {
			t.Fatalf("report %+v", res.Actionability)
		}
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "under;late;moving;" {
		t.Fatalf("status %q", got)
	}
}

func TestActClickShadowAndFrame(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_frames.html")
	res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#shadow-btn"), ActOptions{}))
	if res.Hit == nil || res.Hit.Tag != "span" {
		t.Fatalf("shadow hit %+v", res.Hit)
	}
	if got := actJS(t, ctx, p, `document.getElementById('status').textContent`); got != "shadow;" {
		t.Fatalf("status %q", got)
	}
	fb := actEl(t, ctx, p, "#frame-btn")
	res = actMust(t)(p.Click(ctx, fb, ActOptions{}))
	// The point is in top-level coordinates: inside the iframe's box.
	if res.Point == nil || res.Point.X < 50 || res.Hit == nil || res.Hit.Tag != "button" {
		t.Fatalf("frame click evidence %+v %+v", res.Point, res.Hit)
	}
	if got := actJS(t, ctx, p, `document.getElementById('frame').contentDocument.getElementById('frame-btn').textContent`); got != "Frame clicked" {
		t.Fatalf("frame button %q", got)
	}
	res = actMust(t)(p.Fill(ctx, actEl(t, ctx, p, "#frame-input"), "in frame", ActOptions{}))
	if res.ValueAfter != "in frame" {
		t.Fatalf("frame fill %+v", res)
	}
	// Below the iframe's own fold: scrolled into view inside the frame.
	res = actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#deep-frame-btn"), ActOptions{}))
	if !res.Actionability.Scrolled {
		t.Fatalf("not scrolled: %+v", res.Actionability)
	}
	if got := actJS(t, ctx, p, `document.getElementById('frame').contentDocument.getElementById('deep-frame-btn').textContent`); got != "Deep clicked" {
		t.Fatalf("deep frame button %q", got)
	}
}

func TestActFill(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, page, css, value string
		ch                     Channel
		wantBefore, wantCh     string
		readBack               string // JS expression that must equal value afterwards
	}{
		{"text", "act_form.html", "#name", "Ada Lovelace", ChannelAuto, "", "cdp", `document.getElementById('name').value`},
		{"email", "act_form.html", "#email", "ada@example.com", ChannelAuto, "", "cdp", `document.getElementById('email').value`},
		{"textarea replaces", "act_form.html", "#notes", "line 1\nline 2", ChannelAuto, "old notes", "cdp", `document.getElementById('notes').value`},
		{"textarea clear", "act_form.html", "#notes", "", ChannelAuto, "old notes", "cdp", `document.getElementById('notes').value`},
		{"date", "act_form.html", "#birthday", "2026-11-29", ChannelAuto, "", "dom", `document.getElementById('birthday').value`},
		{"contenteditable", "act_form.html", "#editor", "new text", ChannelAuto, "draft", "cdp", `document.getElementById('editor').innerText`},
		{"text dom", "act_form.html", "#name", "Grace", ChannelDOM, "", "dom", `document.getElementById('name').value`},
		{"react cdp", "act_react.html", "#controlled", "hello", ChannelAuto, "", "cdp", `document.getElementById('state').textContent`},
		{"react dom", "act_react.html", "#controlled", "hello dom", ChannelDOM, "", "dom", `document.getElementById('state').textContent`},
		{"rerender cdp", "act_react.html", "#rerender", "typed in full", ChannelAuto, "", "cdp", `document.getElementById('rstate').textContent`},
		{"rerender dom", "act_react.html", "#rerender", "set in full", ChannelDOM, "", "dom", `document.getElementById('rstate').textContent`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, tc.page)
			res := actMust(t)(p.Fill(ctx, actEl(t, ctx, p, tc.css), tc.value, ActOptions{Channel: tc.ch}))
			if res.ValueBefore != tc.wantBefore || res.ValueAfter != tc.value || string(res.Channel) != tc.wantCh {
				t.Fatalf("evidence before=%q after=%q channel=%s notes=%v", res.ValueBefore, res.ValueAfter, res.Channel, res.Notes)
			}
			if got := actJS(t, ctx, p, tc.readBack); got != tc.value {
				t.Fatalf("page holds %q, want %q", got, tc.value)
			}
		})
	}
}

func TestActFillRerenderRefinds(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_react.html")
	res := actMust(t)(p.Fill(ctx, actEl(t, ctx, p, "#rerender"), "abc", ActOptions{}))
	if !res.Refound {
		t.Fatalf("the field was replaced but not re-found: %+v", res)
	}
	if got := actJS(t, ctx, p, `document.getElementById('renders').textContent`); got == "1" {
		t.Fatal("the fixture did not re-render")
	}
}

func TestActFillFailures(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_form.html")
	_, err := p.Fill(ctx, actEl(t, ctx, p, "#ro"), "x", ActOptions{Wait: 200 * time.Millisecond})
	e := actWantCode(t, err, CodeNotInteractable)
	if !strings.Contains(e.Msg, "readonly") {
		t.Fatalf("msg %q", e.Msg)
	}
	_, err = p.Fill(ctx, actEl(t, ctx, p, "#subscribe"), "x", ActOptions{Wait: 200 * time.Millisecond})
	actWantCode(t, err, CodeNotInteractable)

	p2, ctx2 := actPage(t, "act_react.html")
	res, err := p2.Fill(ctx2, actEl(t, ctx2, p2, "#upper"), "mixed Case", ActOptions{})
	actWantCode(t, err, CodeValueNotApplied)
	if res == nil || res.ValueBefore != "" || res.ValueAfter != "MIXED CASE" {
		t.Fatalf("mismatch evidence: %+v", res)
	}
}

func TestActFillFarBelowFold(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_scroll.html")
	res := actMust(t)(p.Fill(ctx, actEl(t, ctx, p, "#far"), "deep", ActOptions{}))
	if res.Actionability == nil || !res.Actionability.Scrolled || !res.Actionability.InViewport {
		t.Fatalf("not scrolled into view: %+v", res.Actionability)
	}
	res = actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#far-btn"), ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('far-btn').textContent`); got != "Clicked" {
		t.Fatalf("far button %q (%+v)", got, res)
	}
}

func TestActSensitiveFillTrace(t *testing.T) {
	var mu sync.Mutex
	var events []Event
	ctx := testCtx(t, 60*time.Second)
	b, err := Launch(ctx, Options{Tracer: TracerFunc(func(e Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, fixtureURL("act_form.html")); err != nil {
		t.Fatal(err)
	}
	const secret = "hunter2-s3cret"
	res := actMust(t)(p.Fill(ctx, actEl(t, ctx, p, "#password"), secret, ActOptions{Sensitive: true, Step: 7}))
	if res.ValueAfter != Redacted {
		t.Fatalf("result not redacted: %q", res.ValueAfter)
	}
	if got := actJS(t, ctx, p, `document.getElementById('password').value`); got != secret {
		t.Fatalf("field holds %q", got)
	}
	actMust(t)(p.Click(ctx, actEl(t, ctx, p, "#subscribe"), ActOptions{Step: 8}))
	mu.Lock()
	defer mu.Unlock()
	var acts []Event
	for _, e := range events {
		if e.Kind == EvAction {
			acts = append(acts, e)
		}
		if strings.Contains(fmt.Sprint(e.Data), secret) {
			t.Fatalf("secret leaked into trace: %v", e.Data)
		}
	}
	if len(acts) != 2 || acts[0].Action != vocab.ActFill || acts[0].Step != 7 || acts[1].Action != vocab.ActClick || acts[0].Duration <= 0 {
		t.Fatalf("action events: %+v", acts)
	}
	r := acts[1].Data["result"].(map[string]any)
	if r["channel"] != "cdp" || r["point"] == nil {
		t.Fatalf("click trace data %v", r)
	}
}

func TestActSelectNative(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_form.html")
	res := actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Germany"}, ActOptions{}))
	if !slices.Equal(res.SelectedBefore, []string{"Choose…"}) || !slices.Equal(res.SelectedAfter, []string{"Germany"}) || res.Channel != ChannelDOM {
		t.Fatalf("evidence %+v", res)
	}
	// By value too.
	actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"fr"}, ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('country').value + ' ' + document.getElementById('log').textContent`); got != "fr country=de;country=fr;" {
		t.Fatalf("page %q", got)
	}
	res = actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#toppings"), []string{"Cheese", "Olives"}, ActOptions{}))
	if !slices.Equal(res.SelectedBefore, []string{"Ham"}) || !slices.Equal(res.SelectedAfter, []string{"Cheese", "Olives"}) {
		t.Fatalf("multi evidence %+v", res)
	}
	res, err := p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Spain"}, ActOptions{})
	e := actWantCode(t, err, CodeNotFound)
	if len(e.Candidates) != 4 || e.Candidates[1].Name != "France" {
		t.Fatalf("candidates %+v", e.Candidates)
	}
	_, err = p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Japan"}, ActOptions{})
	actWantCode(t, err, CodeNotInteractable)
	_, err = p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"France", "Germany"}, ActOptions{})
	actWantCode(t, err, CodeInvalid)
}

func TestActSelectARIA(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css string
		options   []string
		check     string // JS that must return "ok"
		after     []string
	}{
		{"combobox via aria-controls", "#fruit", []string{"Fig"},
			`document.getElementById('fruit').textContent === 'Fig' && document.getElementById('f-fig').getAttribute('aria-selected') === 'true' ? 'ok' : 'no'`,
			[]string{"Fig"}},
		{"portal listbox rendered late", "#city", []string{"Lisbon"},
			`document.getElementById('city').textContent === 'Lisbon' ? 'ok' : 'no'`, []string{"Lisbon"}},
		{"editable combobox", "#lang", []string{"Rust"},
			`document.getElementById('lang').value === 'Rust' ? 'ok' : 'no'`, []string{"Rust"}},
		{"multiselect listbox", "#colors", []string{"Red", "Blue"},
			`Array.from(document.querySelectorAll('#colors [aria-selected=true]')).map(o => o.textContent).join(',') === 'Red,Blue' ? 'ok' : 'no'`,
			[]string{"Red", "Blue"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_aria.html")
			res := actMust(t)(p.Select(ctx, actEl(t, ctx, p, tc.css), tc.options, ActOptions{}))
			if got := actJS(t, ctx, p, tc.check); got != "ok" {
				t.Fatalf("page state wrong (%+v)", res)
			}
			if !slices.Equal(res.SelectedAfter, tc.after) {
				t.Fatalf("selected after %q, want %q (notes %v)", res.SelectedAfter, tc.after, res.Notes)
			}
		})
	}
	t.Run("missing option", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_aria.html")
		ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := p.Select(ctx2, actEl(t, ctx, p, "#fruit"), []string{"Mango"}, ActOptions{})
		e := actWantCode(t, err, CodeNotFound)
		if len(e.Candidates) != 6 || e.Candidates[0].Name != "Apple" {
			t.Fatalf("candidates %+v", e.Candidates)
		}
	})
}

func TestActCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css   string
		check       bool
		before      string
		after       string
		noop        bool
		via         bool
		wantErrCode Code
	}{
		{"native check", "#subscribe", true, "false", "true", false, false, ""},
		{"native already checked", "#agree", true, "true", "true", true, false, ""},
		{"native uncheck", "#agree", false, "true", "false", false, false, ""},
		{"hidden input via label", "#terms", true, "false", "true", false, true, ""},
		{"label target", "#terms-label", true, "false", "true", false, false, ""},
		{"radio", "#size-m", true, "false", "true", false, false, ""},
		{"aria checkbox", "#news", true, "false", "true", false, false, ""},
		{"aria switch off", "#dark", false, "true", "false", false, false, ""},
		{"ignored click", "#stuck", true, "false", "false", false, false, CodeNoEffect},
		{"radio uncheck", "#size-s", false, "true", "", false, false, CodeInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_form.html")
			e := actEl(t, ctx, p, tc.css)
			var res *ActResult
			var err error
			if tc.check {
				res, err = p.Check(ctx, e, ActOptions{})
			} else {
				res, err = p.Uncheck(ctx, e, ActOptions{})
			}
			if tc.wantErrCode != "" {
				actWantCode(t, err, tc.wantErrCode)
			} else {
				actMust(t)(res, err)
			}
			if res.CheckedBefore != tc.before || res.CheckedAfter != tc.after || res.NoOp != tc.noop {
				t.Fatalf("evidence before=%s after=%s noop=%v", res.CheckedBefore, res.CheckedAfter, res.NoOp)
			}
			if tc.via && (res.Actionability == nil || res.Actionability.Via == nil || res.Actionability.Via.Tag != "label") {
				t.Fatalf("hidden checkbox not clicked through its label: %+v", res.Actionability)
			}
		})
	}
}

func TestActPress(t *testing.T) {
	t.Parallel()
	t.Run("enter submits", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_nav.html")
		res := actMust(t)(p.Press(ctx, actEl(t, ctx, p, "#name"), "Enter", ActOptions{}))
		if !res.Navigated || !strings.Contains(res.URL, "/api/act/submit") || res.Focused == nil || res.Focused.Tag != "input" {
			t.Fatalf("evidence %+v", res)
		}
		if got := actJS(t, ctx, p, `document.getElementById('thanks').textContent`); got != "Thanks Ada" {
			t.Fatalf("page %q", got)
		}
	})
	t.Run("keys", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_form.html")
		name := actEl(t, ctx, p, "#name")
		actMust(t)(p.Fill(ctx, name, "to be cleared", ActOptions{}))
		actMust(t)(p.Press(ctx, name, "Control+A", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "Backspace", ActOptions{}))
		if got := actJS(t, ctx, p, `document.getElementById('name').value`); got != "" {
			t.Fatalf("Control+A, Backspace left %q", got)
		}
		actMust(t)(p.Press(ctx, nil, "Shift+A", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "b", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "!", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "Escape", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "ArrowDown", ActOptions{}))
		if got := actJS(t, ctx, p, `document.getElementById('name').value + '|' + document.getElementById('log').textContent`); got != "Ab!|escape;down;" {
			t.Fatalf("page %q", got)
		}
		res := actMust(t)(p.Press(ctx, nil, "Tab", ActOptions{}))
		if res.Focused == nil || res.Focused.Tag != "input" {
			t.Fatalf("focused before tab %+v", res.Focused)
		}
		if got := actJS(t, ctx, p, `document.activeElement.id`); got != "email" {
			t.Fatalf("Tab moved focus to %q", got)
		}
		actMust(t)(p.Press(ctx, nil, "Shift+Tab", ActOptions{}))
		if got := actJS(t, ctx, p, `document.activeElement.id`); got != "name" {
			t.Fatalf("Shift+Tab moved focus to %q", got)
		}
	})
	t.Run("bad spec", func(t *testing.T) {
		t.Parallel()
		for _, spec := range []string{"", "Foo+A", "Control+", "NoSuchKey"} {
			if _, err := parseChord(spec); !IsCode(err, CodeInvalid) {
				t.Errorf("parseChord(%q) = %v", spec, err)
			}
		}
	})
}

func TestActHover(t *testing.T) {
	t.Parallel()
	for _, ch := range []Channel{ChannelCDP, ChannelDOM} {
		t.Run(string(ch), func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_form.html")
			res := actMust(t)(p.Hover(ctx, actEl(t, ctx, p, "#tip"), ActOptions{Channel: ch}))
			if got := actJS(t, ctx, p, `document.getElementById('log').textContent`); got != "hover;" {
				t.Fatalf("log %q (%+v)", got, res)
			}
			if res.Channel != ch || (ch == ChannelCDP && (res.Point == nil || res.Hit == nil || res.Hit.Selector != "#tip")) {
				t.Fatalf("evidence channel=%s point=%+v hit=%+v", res.Channel, res.Point, res.Hit)
			}
		})
	}
}

func TestActUpload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"me.txt", "a.txt", "b.txt", "data.csv"} {
		files[n] = filepath.Join(dir, n)
		if err := os.WriteFile(files[n], []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, css string
		files     []string
		via       string
		list      string
	}{
		{"button for hidden input", "#avatar-btn", []string{"me.txt"}, "nearest ancestor", "avatar:me.txt"},
		{"input itself", "#avatar", []string{"me.txt"}, "self", "avatar:me.txt"},
		{"label for hidden multiple input", "#docs-label", []string{"a.txt", "b.txt"}, "label", "docs:a.txt,docs:b.txt"},
		{"file chooser", "#far-btn", []string{"data.csv"}, "file chooser", "far:data.csv"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_upload.html")
			var paths []string
			for _, f := range tc.files {
				paths = append(paths, files[f])
			}
			res := actMust(t)(p.Upload(ctx, actEl(t, ctx, p, tc.css), paths, ActOptions{}))
			if res.FileVia != tc.via || !slices.Equal(res.Files, tc.files) || res.FileInput == nil || res.FileInput.Tag != "input" {
				t.Fatalf("evidence via=%q files=%q input=%+v notes=%v", res.FileVia, res.Files, res.FileInput, res.Notes)
			}
			if got := actJS(t, ctx, p, `Array.from(document.querySelectorAll('#files li')).map(l => l.textContent).join(',')`); got != tc.list {
				t.Fatalf("page saw %q", got)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_upload.html")
		_, err := p.Upload(ctx, actEl(t, ctx, p, "#avatar"), []string{filepath.Join(dir, "missing.txt")}, ActOptions{})
		actWantCode(t, err, CodeInvalid)
		_, err = p.Upload(ctx, actEl(t, ctx, p, "#avatar"), []string{files["a.txt"], files["b.txt"]}, ActOptions{})
		actWantCode(t, err, CodeInvalid)
	})
}

func TestActScroll(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_scroll.html")
	res := actMust(t)(p.Scroll(ctx, nil, 500, ActOptions{}))
	if res.ScrollBefore == nil || res.ScrollAfter == nil || res.ScrollBefore.Y != 0 || res.ScrollAfter.Y != 500 {
		t.Fatalf("page scroll %+v -> %+v", res.ScrollBefore, res.ScrollAfter)
	}
	res = actMust(t)(p.Scroll(ctx, nil, -200, ActOptions{Channel: ChannelCDP}))
	if res.ScrollAfter == nil || res.ScrollAfter.Y != 300 {
		t.Fatalf("wheel scroll %+v -> %+v", res.ScrollBefore, res.ScrollAfter)
	}
	res = actMust(t)(p.Scroll(ctx, actEl(t, ctx, p, "#far-btn"), 0, ActOptions{}))
	if res.ScrollAfter.Y < 2500 {
		t.Fatalf("into view: %+v", res.ScrollAfter)
	}
	if got := actJS(t, ctx, p, `(() => { const r = document.getElementById('far-btn').getBoundingClientRect(); return r.top > 0 && r.bottom < innerHeight ? 'in' : 'out'; })()`); got != "in" {
		t.Fatal("far button not in view")
	}
	res = actMust(t)(p.Scroll(ctx, actEl(t, ctx, p, "#item9"), 80, ActOptions{}))
	if res.ScrollBefore.Y != 0 || res.ScrollAfter.Y != 80 {
		t.Fatalf("container scroll %+v -> %+v", res.ScrollBefore, res.ScrollAfter)
	}
}

func TestActChordParse(t *testing.T) {
	t.Parallel()
	c, err := parseChord("Control+Shift+a")
	if err != nil || c.modBits != modControl|modShift || c.key.code != "KeyA" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = parseChord("Control++")
	if err != nil || c.key.key != "+" || c.modBits != modControl {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = parseChord("Control+A")
	if err != nil || c.key.key != "a" {
		t.Fatalf("Control+A: %+v %v", c, err)
	}
}

// The actions take whatever grounding resolved, not only CSS targets.
func TestActWithSemanticTargets(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_form.html")
	resolve := func(tg Target) *Element {
		t.Helper()
		e, err := p.Resolve(ctx, tg)
		if err != nil {
			t.Fatalf("resolve %s: %v", tg, err)
		}
		return e
	}
	actMust(t)(p.Fill(ctx, resolve(Target{Label: "Full name"}), "Grace Hopper", ActOptions{}))
	actMust(t)(p.Select(ctx, resolve(Target{Role: "combobox", Name: "Country"}), []string{"France"}, ActOptions{}))
	actMust(t)(p.Check(ctx, resolve(Target{Role: "checkbox", Name: "Subscribe"}), ActOptions{}))
	res := actMust(t)(p.Click(ctx, resolve(Target{Role: "button", Name: "Send"}), ActOptions{}))
	if !res.Navigated || !strings.Contains(res.URL, "name=Grace+Hopper") || !strings.Contains(res.URL, "country=fr") || !strings.Contains(res.URL, "subscribe=on") {
		t.Fatalf("submitted %q", res.URL)
	}
}
