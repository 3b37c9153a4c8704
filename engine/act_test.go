package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

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
	if res.ValueAfter != redact.Marker {
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
