package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

func groundIntp(i int) *int { return &i }

// openFixture opens a fresh page on a testdata fixture.
func groundOpen(t *testing.T, path string) (*Page, context.Context) {
	t.Helper()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL(path)); err != nil {
		t.Fatal(err)
	}
	return p, ctx
}

// evalBool evaluates a JS function body (with window.__mk as mk) that
// returns a boolean.
func groundEvalBool(t *testing.T, ctx context.Context, p *Page, body string, args ...any) bool {
	t.Helper()
	var ok bool
	if err := p.groundEvalJSON(ctx, &ok, "(...args) => { const mk = window.__mk; "+body+" }", args...); err != nil {
		t.Fatal(err)
	}
	return ok
}

func (p *Page) groundEvalJSON(ctx context.Context, out any, js string, args ...any) error {
	res, err := p.rod.Context(ctx).Eval(js, args...)
	if err != nil {
		return err
	}
	return res.Value.Unmarshal(out)
}

type groundWant struct {
	role, name, tag string
	selector        string // substring of Selector
	frame           string
	how             string
	text            string // substring of Fingerprint.Text
	hidden          bool
}

func groundCheck(t *testing.T, el *Element, w groundWant) {
	t.Helper()
	if el.Role != w.role || el.Name != w.name || el.Tag != w.tag {
		t.Errorf("got %s %q <%s>, want %s %q <%s>", el.Role, el.Name, el.Tag, w.role, w.name, w.tag)
	}
	if w.selector != "" && !strings.Contains(el.Selector, w.selector) {
		t.Errorf("selector %q does not contain %q", el.Selector, w.selector)
	}
	if el.Frame != w.frame {
		t.Errorf("frame %q, want %q", el.Frame, w.frame)
	}
	if el.Visible == w.hidden {
		t.Errorf("visible %v, want %v", el.Visible, !w.hidden)
	}
	if w.how != "" && el.How != w.how {
		t.Errorf("how %q, want %q", el.How, w.how)
	}
	if w.text != "" && !strings.Contains(el.Fingerprint.Text, w.text) {
		t.Errorf("fingerprint text %q does not contain %q", el.Fingerprint.Text, w.text)
	}
	if el.Ref <= 0 || el.Confidence <= 0 || el.Confidence > 1 {
		t.Errorf("ref %d confidence %v", el.Ref, el.Confidence)
	}
}

func TestResolveForm(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_form.html")
	tests := []struct {
		name   string
		target Target
		want   groundWant
	}{
		{"role+name for=label", Target{Role: "textbox", Name: "Email"}, groundWant{role: "textbox", name: "Email", tag: "input", selector: "#email", how: "unique"}},
		{"role+name wrapping label", Target{Role: "textbox", Name: "Password"}, groundWant{role: "textbox", name: "Password", tag: "input", selector: `input[name="password"]`}},
		{"role name whitespace-normalised", Target{Role: "checkbox", Name: "  I accept   the terms "}, groundWant{role: "checkbox", name: "I accept the terms", tag: "input"}},
		{"aria-label combobox", Target{Role: "combobox", Name: "Country"}, groundWant{role: "combobox", name: "Country", tag: "select", selector: "#country"}},
		{"label for=", Target{Label: "Email"}, groundWant{role: "textbox", name: "Email", tag: "input", selector: "#email"}},
		{"label substring fallback", Target{Label: "passw"}, groundWant{role: "textbox", name: "Password", tag: "input", how: "substring"}},
		{"label labelledby", Target{Label: "Bio"}, groundWant{role: "textbox", name: "Bio", tag: "textarea"}},
		{"placeholder exact", Target{Placeholder: "you@example.com"}, groundWant{role: "textbox", name: "Email", tag: "input"}},
		{"placeholder substring", Target{Placeholder: "tell us"}, groundWant{role: "textbox", name: "Bio", tag: "textarea", how: "substring"}},
		{"testid", Target{TestID: "email-input"}, groundWant{role: "textbox", name: "Email", tag: "input"}},
		{"testid button", Target{TestID: "cancel"}, groundWant{role: "button", name: "Cancel", tag: "button", selector: `[data-testid="cancel"]`}},
		{"css", Target{CSS: "select#country"}, groundWant{role: "combobox", name: "Country", tag: "select"}},
		{"submit value", Target{Role: "button", Name: "Create account"}, groundWant{role: "button", name: "Create account", tag: "input"}},
		{"text of value button", Target{Text: "Create account"}, groundWant{role: "button", name: "Create account", tag: "input"}},
		{"text exact innermost", Target{Text: "3"}, groundWant{role: "", name: "", tag: "b"}},
		{"text substring", Target{Text: "welcome back"}, groundWant{role: "paragraph", name: "", tag: "p", how: "substring"}},
		{"img alt names button", Target{Role: "button", Name: "Search"}, groundWant{role: "button", name: "Search", tag: "button"}},
		{"regex name", Target{Role: "link", Name: "/^need\\s+HELP/i"}, groundWant{role: "link", name: "Need help?", tag: "a"}},
		{"named form", Target{Role: "form", Name: "Sign up"}, groundWant{role: "form", name: "Sign up", tag: "form", selector: "#signup"}},
		{"heading", Target{Role: "heading", Name: "Sign up"}, groundWant{role: "heading", name: "Sign up", tag: "h1"}},
		{"disabled button still grounds", Target{Role: "button", Name: "Save draft"}, groundWant{role: "button", name: "Save draft", tag: "button"}},
		{"name alone", Target{Name: "Cancel"}, groundWant{role: "button", name: "Cancel", tag: "button"}},
		{"within text", Target{Role: "button", Name: "Delete", Within: &Target{Text: "Banana"}}, groundWant{role: "button", name: "Delete", tag: "button", text: "Banana"}},
		{"within landmark", Target{Role: "link", Name: "Home", Within: &Target{Role: "navigation", Name: "Main"}}, groundWant{role: "link", name: "Home", tag: "a"}},
		{"nth", Target{Role: "button", Name: "Delete", Nth: groundIntp(1)}, groundWant{role: "button", name: "Delete", tag: "button", how: "nth", text: "Banana"}},
		{"nth 0", Target{Role: "button", Name: "Delete", Nth: groundIntp(0)}, groundWant{role: "button", name: "Delete", tag: "button", how: "nth", text: "Apple"}},
		{"last", Target{Role: "button", Name: "Delete", Last: true}, groundWant{role: "button", name: "Delete", tag: "button", how: "last", text: "Cherry"}},
		{"single hidden match still grounds", Target{CSS: "#orders button:first-child"}, groundWant{role: "button", name: "Submit order", tag: "button", how: "unique", hidden: true}},
		{"prefer the one visible", Target{Role: "button", Name: "Submit order"}, groundWant{role: "button", name: "Submit order", tag: "button", how: "visible", selector: "button:nth-of-type(2)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el, err := p.Resolve(ctx, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			groundCheck(t, el, tc.want)
		})
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_form.html")
	tests := []struct {
		name      string
		target    Target
		code      Code
		wantCands []string // role:name of candidates, in order (prefix of the list)
		minCands  int
	}{
		{"ambiguous lists every match", Target{Role: "button", Name: "Delete"}, CodeAmbiguous, []string{"button:Delete", "button:Delete", "button:Delete"}, 3},
		{"ambiguous visible first", Target{Text: "Submit order"}, CodeNotFound, nil, 0}, // placeholder, replaced below
		{"not found near misses same role", Target{Role: "button", Name: "Delet"}, CodeNotFound, []string{"button:Delete"}, 3},
		{"not found label near miss", Target{Label: "E-mail"}, CodeNotFound, []string{"textbox:Email"}, 1},
		{"not found testid near miss", Target{TestID: "email"}, CodeNotFound, []string{"textbox:Email"}, 1},
		{"nth out of range", Target{Role: "button", Name: "Delete", Nth: groundIntp(5)}, CodeNotFound, []string{"button:Delete"}, 3},
		{"within not found", Target{Role: "button", Within: &Target{TestID: "nope"}}, CodeNotFound, nil, 0},
		{"two locators", Target{Role: "button", CSS: "button"}, CodeInvalid, nil, 0},
		{"no locator", Target{}, CodeInvalid, nil, 0},
		{"bad css", Target{CSS: "[[["}, CodeInvalid, nil, 0},
		{"bad regex", Target{Role: "button", Name: "/(/"}, CodeInvalid, nil, 0},
	}
	// Two visible "Delete"-like texts do not exist; make a real visible-first
	// ambiguity: the text "Submit order" has one hidden and one visible
	// match, so it resolves; use the "Delete" text instead.
	tests[1] = struct {
		name      string
		target    Target
		code      Code
		wantCands []string
		minCands  int
	}{"ambiguous by text", Target{Text: "Delete"}, CodeAmbiguous, []string{"button:Delete", "button:Delete", "button:Delete"}, 3}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el, err := p.Resolve(ctx, tc.target)
			if err == nil {
				t.Fatalf("resolved to %+v, want %s", el, tc.code)
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code {
				t.Fatalf("err = %v, want code %s", err, tc.code)
			}
			if len(e.Candidates) < tc.minCands {
				t.Fatalf("%d candidates, want >= %d: %v", len(e.Candidates), tc.minCands, err)
			}
			for i, w := range tc.wantCands {
				c := e.Candidates[i]
				if got := c.Role + ":" + c.Name; got != w {
					t.Errorf("candidate %d = %s, want %s (%v)", i, got, w, err)
				}
			}
			if tc.code != CodeInvalid && e.Target == nil {
				t.Errorf("error carries no target")
			}
		})
	}
	// Near misses for a role name list the same-role elements, best first,
	// and the message names them.
	_, err := p.Resolve(ctx, Target{Role: "button", Name: "Remove"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeNotFound {
		t.Fatalf("err = %v", err)
	}
	names := map[string]bool{}
	for _, c := range e.Candidates {
		if c.Role != "button" {
			t.Errorf("near miss of another role: %+v", c)
		}
		names[c.Name] = true
	}
	for _, n := range []string{"Delete", "Cancel", "Create account"} {
		if !names[n] {
			t.Errorf("near misses %v lack %q", names, n)
		}
	}
	if !strings.Contains(err.Error(), "candidates:") {
		t.Errorf("message lists no candidates: %v", err)
	}
}

func TestResolveAmbiguousCandidates(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_form.html")
	_, err := p.Resolve(ctx, Target{Role: "button", Name: "Delete"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeAmbiguous {
		t.Fatalf("err = %v", err)
	}
	want := []string{"li:nth-of-type(1) > button", "li:nth-of-type(2) > button", "li:nth-of-type(3) > button"}
	if len(e.Candidates) != 3 {
		t.Fatalf("candidates %+v", e.Candidates)
	}
	for i, c := range e.Candidates {
		if !strings.HasSuffix(c.Selector, want[i]) || !c.Visible || c.Tag != "button" {
			t.Errorf("candidate %d = %+v, want selector ending %q", i, c, want[i])
		}
	}
}

func TestCountAndMatches(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_form.html")
	tests := []struct {
		target     Target
		all, shown int
	}{
		{Target{Role: "button", Name: "Delete"}, 3, 3},
		{Target{Role: "button", Name: "Delete", Nth: groundIntp(2)}, 3, 3}, // nth ignored
		{Target{Role: "listitem"}, 3, 3},
		{Target{Role: "button", Name: "Submit order"}, 2, 1},
		{Target{Role: "link", Within: &Target{Role: "navigation"}}, 2, 2},
		{Target{Role: "button", Name: "nothing"}, 0, 0},
		{Target{CSS: "li"}, 3, 3},
	}
	for _, tc := range tests {
		n, err := p.Count(ctx, tc.target)
		if err != nil || n != tc.all {
			t.Errorf("Count(%v) = %d, %v; want %d", tc.target, n, err, tc.all)
		}
		all, vis, err := p.CountVisible(ctx, tc.target)
		if err != nil || all != tc.all || vis != tc.shown {
			t.Errorf("CountVisible(%v) = %d, %d, %v; want %d, %d", tc.target, all, vis, err, tc.all, tc.shown)
		}
	}
	// Removing a row changes the count: the list_count_delta use case.
	if _, err := p.rod.Context(ctx).Eval(`() => document.querySelector('#items li').remove()`); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Count(ctx, Target{Role: "listitem"}); n != 2 {
		t.Errorf("after removal Count = %d, want 2", n)
	}
	cs, err := p.Matches(ctx, Target{Role: "button", Name: "Delete"})
	if err != nil || len(cs) != 2 || !strings.HasSuffix(cs[1].Selector, "li:nth-of-type(2) > button") {
		t.Errorf("Matches = %+v, %v", cs, err)
	}
	if _, err := p.Count(ctx, Target{CSS: "[[["}); !IsCode(err, CodeInvalid) {
		t.Errorf("Count(bad css) err = %v", err)
	}
}

func TestResolveShadow(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_shadow.html")
	tests := []struct {
		name   string
		target Target
		want   groundWant
	}{
		{"role in shadow", Target{Role: "textbox", Name: "Username"}, groundWant{role: "textbox", name: "Username", tag: "input", selector: "login-box >>> #u"}},
		{"label in shadow", Target{Label: "Username"}, groundWant{role: "textbox", name: "Username", tag: "input"}},
		{"wrapping label in shadow", Target{Label: "Passcode"}, groundWant{role: "textbox", name: "Passcode", tag: "input"}},
		{"placeholder in shadow", Target{Placeholder: "name@corp"}, groundWant{role: "textbox", name: "Username", tag: "input"}},
		{"testid in shadow", Target{TestID: "shadow-submit"}, groundWant{role: "button", name: "Sign in", tag: "button"}},
		{"css pierces shadow roots", Target{CSS: "button.primary"}, groundWant{role: "button", name: "Sign in", tag: "button"}},
		{"nested shadow root", Target{Role: "switch", Name: "Remember me"}, groundWant{role: "switch", name: "Remember me", tag: "div", selector: "login-box >>> fancy-toggle >>> div"}},
		{"within a host", Target{Role: "button", Within: &Target{CSS: "login-box"}}, groundWant{role: "button", name: "Sign in", tag: "button"}},
		{"text in shadow", Target{Text: "Sign in"}, groundWant{role: "button", name: "Sign in", tag: "button"}},
		{"slotted text", Target{Text: "Use your work account"}, groundWant{role: "", name: "", tag: "span"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el, err := p.Resolve(ctx, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			groundCheck(t, el, tc.want)
			if !el.Visible {
				t.Errorf("not visible: %+v", el)
			}
			// The ref round-trips to the very node, and the selector
			// resolves back to it.
			if !groundEvalBool(t, ctx, p, `const el = mk.deref(args[0]); return !!el && mk.query(args[1], args[2]) === el && mk.elementAt(args[3], args[4]) !== null;`, el.Ref, el.Selector, el.Frame, el.Box.X+el.Box.Width/2, el.Box.Y+el.Box.Height/2) {
				t.Errorf("ref/selector round trip failed for %+v", el)
			}
		})
	}
	// Clicking the resolved shadow button through its handle works.
	el, err := p.Resolve(ctx, Target{Role: "button", Name: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := el.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(ctx, Target{Role: "button", Name: "Signed in"}); err != nil {
		t.Errorf("click on the shadow button had no effect: %v", err)
	}
}

func TestResolveIframe(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_frame.html")
	// The frame document may finish loading after the top one.
	deadline := time.Now().Add(5 * time.Second)
	var el *Element
	var err error
	for {
		el, err = p.Resolve(ctx, Target{Role: "textbox", Name: "Card number"})
		if err == nil || time.Now().After(deadline) {
			break
		}
		if werr := p.groundWaitFrames(ctx); werr != nil {
			t.Fatal(werr)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	groundCheck(t, el, groundWant{role: "textbox", name: "Card number", tag: "input", selector: "#cc", frame: "#pay"})
	// The iframe sits at x = 53 + 7 (border) + 13 (padding), y = 137 + 7 +
	// 11; the inner body margin is 20.
	if el.Box.X < 53+7+13+20-1 || el.Box.Y < 137+7+11+20-1 {
		t.Errorf("box %+v lacks the iframe offset", el.Box)
	}
	for _, tg := range []Target{
		{Role: "textbox", Name: "Card number"},
		{Label: "Expiry"},
		{Placeholder: "MM/YY"},
		{Role: "button", Name: "Pay now"},
		{Role: "button", Name: "Pay now", Within: &Target{CSS: "iframe#pay"}},
		{Role: "button", Within: &Target{Role: "form", Name: "Payment"}},
	} {
		el, err := p.Resolve(ctx, tg)
		if err != nil {
			t.Errorf("%v: %v", tg, err)
			continue
		}
		if el.Frame != "#pay" {
			t.Errorf("%v: frame %q", tg, el.Frame)
		}
		x, y := el.Box.Center()
		// Top-level hit test lands on the iframe; drilled, on the element.
		if !groundEvalBool(t, ctx, p, `const el = mk.deref(args[0]); return document.elementFromPoint(args[1], args[2]).id === 'pay' && mk.elementAt(args[1], args[2]) === el && mk.hitTest(el).occluded === false && mk.query(args[3], args[4]) === el;`, el.Ref, x, y, el.Selector, el.Frame) {
			t.Errorf("%v: point (%v,%v) does not hit the element through the iframe", tg, x, y)
		}
	}
	// A real mouse click at the grounded coordinates reaches the button in
	// the frame.
	btn, err := p.Resolve(ctx, Target{Role: "button", Name: "Pay now"})
	if err != nil {
		t.Fatal(err)
	}
	x, y := btn.Box.Center()
	m := p.rod.Context(ctx).Mouse
	if err := m.MoveTo(proto.Point{X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if err := m.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(ctx, Target{Role: "button", Name: "Paid"}); err != nil {
		t.Errorf("mouse click at the grounded point missed the iframe button: %v", err)
	}
}

// groundWaitFrames waits until every same-origin iframe has a complete
// document.
func (p *Page) groundWaitFrames(ctx context.Context) error {
	_, err := p.rod.Context(ctx).Eval(`() => new Promise((resolve) => {
		const ready = () => Array.from(document.querySelectorAll('iframe')).every((f) => { try { return f.contentDocument && f.contentDocument.readyState === 'complete' && f.contentDocument.URL !== 'about:blank'; } catch (e) { return true; } });
		if (ready()) return resolve(true);
		const check = () => { if (ready()) resolve(true); };
		for (const f of document.querySelectorAll('iframe')) f.addEventListener('load', check);
	})`)
	return err
}

func TestRefind(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_rerender.html")
	eval := func(js string) {
		t.Helper()
		if _, err := p.rod.Context(ctx).Eval(js); err != nil {
			t.Fatal(err)
		}
	}
	banana, err := p.Resolve(ctx, Target{Role: "button", Name: "Delete", Within: &Target{Role: "listitem", Name: "/Banana/"}})
	if err != nil {
		// listitem names come from content; fall back to text.
		banana, err = p.Resolve(ctx, Target{Role: "button", Name: "Delete", Within: &Target{Text: "Banana"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if banana.Fingerprint.Twins != 2 || !strings.Contains(banana.Fingerprint.Text, "Banana") {
		t.Fatalf("fingerprint %+v", banana.Fingerprint)
	}
	save, err := p.Resolve(ctx, Target{Role: "button", Name: "Save"})
	if err != nil {
		t.Fatal(err)
	}

	eval(`() => window.rerender()`)
	// The old refs are detached now.
	if _, err := banana.Handle(ctx); !IsCode(err, CodeNotFound) {
		t.Fatalf("Handle after re-render: err = %v, want not_found", err)
	}
	if err := save.Refresh(ctx); !IsCode(err, CodeNotFound) {
		t.Fatalf("Refresh after re-render: err = %v, want not_found", err)
	}

	tests := []struct {
		name    string
		setup   string
		fp      Fingerprint
		code    Code   // "" = found
		text    string // expected substring of the found element's fingerprint text
		minConf float64
	}{
		{"same markup re-rendered", "", banana.Fingerprint, "", "Banana", 0.95},
		{"unique button re-rendered (new id)", "", save.Fingerprint, "", "", 0.8},
		{"row moved", "() => window.sortDesc()", banana.Fingerprint, "", "Banana", 0.8},
		{"row removed: neighbours refused", "() => window.removeItem('Banana')", banana.Fingerprint, CodeNotFound, "", 0},
		{"button removed: refused", "() => window.hideSave()", save.Fingerprint, CodeNotFound, "", 0},
	}
	for _, tc := range tests {
		if tc.setup != "" {
			eval(tc.setup)
		}
		el, err := p.Refind(ctx, tc.fp)
		if tc.code != "" {
			if !IsCode(err, tc.code) {
				t.Errorf("%s: Refind = %+v, %v; want %s", tc.name, el, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if el.Name != tc.fp.Name || el.Role != tc.fp.Role || el.How != "refind" {
			t.Errorf("%s: found %s %q", tc.name, el.Role, el.Name)
		}
		if el.Confidence < tc.minConf || el.Confidence < RefindThreshold || el.Confidence > 1 {
			t.Errorf("%s: confidence %v, want >= %v", tc.name, el.Confidence, tc.minConf)
		}
		if tc.text != "" && !strings.Contains(el.Fingerprint.Text, tc.text) {
			t.Errorf("%s: re-found the wrong row: %q", tc.name, el.Fingerprint.Text)
		}
		if _, err := el.Handle(ctx); err != nil {
			t.Errorf("%s: handle: %v", tc.name, err)
		}
	}
}

func TestResolveAXTieBreak(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_ax.html")
	el, err := p.Resolve(ctx, Target{Role: "button", Name: "Close"})
	if err != nil {
		t.Fatal(err)
	}
	if el.How != "axtree" || !strings.HasSuffix(el.Selector, "#real") || el.Confidence >= 1 {
		t.Errorf("tie settled as %+v, want #real via the AX tree", el)
	}
	// A genuine tie stays ambiguous.
	_, err = p.Resolve(ctx, Target{Role: "button", Name: "Open"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeAmbiguous || len(e.Candidates) != 2 {
		t.Fatalf("err = %v, want ambiguous with 2 candidates", err)
	}
}

func TestRefindAmbiguous(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_ax.html")
	// Two identical "Open" buttons and a fingerprint that cannot tell them
	// apart: Refind must not guess.
	_, err := p.Refind(ctx, Fingerprint{Role: "button", Name: "Open", Tag: "button"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeAmbiguous || len(e.Candidates) < 2 || e.Candidates[0].Name != "Open" || e.Candidates[1].Name != "Open" {
		t.Fatalf("err = %v, want ambiguous between the two Open buttons", err)
	}
	// With its path the second one is found, confidently.
	el, err := p.Resolve(ctx, Target{Role: "button", Name: "Open", Last: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Refind(ctx, el.Fingerprint)
	if err != nil || got.Ref != el.Ref || got.Confidence < 0.99 {
		t.Fatalf("Refind(own fingerprint) = %+v, %v; want ref %d", got, err, el.Ref)
	}
	if _, err := p.Refind(ctx, Fingerprint{}); !IsCode(err, CodeInvalid) {
		t.Errorf("empty fingerprint: err = %v", err)
	}
}

// TestResolveNameWords: a role name is exact first; only when no name is
// exact do the visible elements whose name holds its words (whole words,
// any case) match, and several of them are ambiguous.
func TestResolveNameWords(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_widgets.html")
	tests := []struct {
		name     string
		target   Target
		code     Code   // "" = resolves
		selector string // of the element it resolves to
		how      string
	}{
		{"icon label before the text", Target{Role: "button", Name: "Upload invoice"}, "", "#upload", "words"},
		{"case does not matter", Target{Role: "button", Name: "UPLOAD INVOICE"}, "", "#upload", "words"},
		{"exact wins over words", Target{Role: "button", Name: "Export"}, "", "#export", "unique"},
		{"hidden word matches do not count", Target{Role: "button", Name: "report"}, CodeNotFound, "", ""},
		{"two visible word matches", Target{Role: "button", Name: "save"}, CodeAmbiguous, "", ""},
		{"whole words only", Target{Role: "button", Name: "Upload invoices"}, CodeNotFound, "", ""},
		{"no partial word", Target{Role: "button", Name: "voice"}, CodeNotFound, "", ""},
		{"regex never falls back", Target{Role: "button", Name: "/^Upload invoice$/"}, CodeNotFound, "", ""},
		{"name alone", Target{Name: "draft"}, "", "#save-draft", "words"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el, err := p.Resolve(ctx, tc.target)
			if tc.code != "" {
				if !IsCode(err, tc.code) {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				var ee *Error
				if tc.code == CodeAmbiguous && (!errors.As(err, &ee) || len(ee.Candidates) != 2) {
					t.Fatalf("ambiguity should list both Save buttons: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if el.Selector != tc.selector || el.How != tc.how {
				t.Fatalf("resolved %s (how %s), want %s (how %s)", el.Selector, el.How, tc.selector, tc.how)
			}
		})
	}
}

// TestResolveLabelOperable: when a label names a control and parts of it,
// the target resolves to what a user operates.
func TestResolveLabelOperable(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_widgets.html")
	tests := []struct {
		name, label, selector string
		matches               int // elements the label names in all
	}{
		{"combobox over the listbox it controls", "Department", "#dept", 2},
		{"sectioned group over its aria-hidden input", "Access expires", "#exp-group", 2},
		{"visible inner of nested matches", "Search", "#search", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n int
			if err := p.groundEvalJSON(ctx, &n, `(l) => window.__mk.operable === undefined ? -1 : Array.from(document.querySelectorAll('[aria-labelledby],[aria-label],input')).filter((e) => window.__mk.labelText(e) === l).length`, tc.label); err != nil {
				t.Fatal(err)
			}
			if n != tc.matches {
				t.Fatalf("the fixture labels %d elements %q, want %d", n, tc.label, tc.matches)
			}
			el, err := p.Resolve(ctx, Target{Label: tc.label})
			if err != nil {
				t.Fatal(err)
			}
			if el.Selector != tc.selector {
				t.Fatalf("resolved %s, want %s", el.Selector, tc.selector)
			}
		})
	}
}
