package engine

import (
	"bytes"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// snapFind returns the index of the only element with role and name, failing
// the test when there is not exactly one.
func snapFind(t *testing.T, s *Snapshot, role, name string) int {
	t.Helper()
	idx := -1
	for i, e := range s.Elements {
		if e.Role == role && e.Name == name {
			if idx >= 0 {
				t.Fatalf("two snapshot elements %s %q: [%d] and [%d]", role, name, idx, i)
			}
			idx = i
		}
	}
	if idx < 0 {
		var have []string
		for _, e := range s.Elements {
			have = append(have, e.Role+":"+e.Name)
		}
		t.Fatalf("no snapshot element %s %q; have %v", role, name, have)
	}
	return idx
}

func TestSnapshotElements(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_page.html")
	s, err := p.Snapshot(ctx, SnapshotOptions{Headings: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Perception page" || !strings.HasSuffix(s.URL, "/perception_page.html") || s.Viewport.Width != 1280 {
		t.Errorf("title %q url %q viewport %+v", s.Title, s.URL, s.Viewport)
	}
	tests := []struct {
		role, name, tag, value string
		states                 States
		visible, inViewport    bool
		level                  int
	}{
		{"banner", "", "header", "", States{}, true, true, 0},
		{"navigation", "Primary", "nav", "", States{}, true, true, 0},
		{"link", "Docs", "a", "", States{}, true, true, 0},
		{"complementary", "Filters", "aside", "", States{}, true, true, 0},
		{"checkbox", "In stock", "input", "", States{Checkable: true, Checked: true}, true, true, 0},
		{"checkbox", "Some sizes", "input", "", States{Checkable: true, Mixed: true}, true, true, 0},
		{"main", "", "main", "", States{}, true, true, 0},
		{"heading", "Settings", "h1", "", States{}, true, true, 1},
		{"region", "Profile", "section", "", States{}, true, true, 0},
		{"form", "Profile form", "form", "", States{}, true, true, 0},
		{"textbox", "Email", "input", "a@b.c", States{Required: true, Focused: true}, true, true, 0},
		{"spinbutton", "Age", "input", "12", States{Invalid: true}, true, true, 0},
		{"combobox", "Plan", "select", "Pro", States{}, true, true, 0},
		{"slider", "Volume", "input", "30", States{}, true, true, 0},
		{"textbox", "Notes", "textarea", "hello   world", States{Readonly: true}, true, true, 0},
		{"textbox", "Password", "input", "•••••••", States{}, true, true, 0},
		{"button", "Save", "button", "", States{Disabled: true}, true, true, 0},
		{"button", "More", "button", "", States{Expandable: true}, true, true, 0},
		{"switch", "Dark mode", "div", "", States{Checkable: true, Checked: true}, true, true, 0},
		{"tab", "General", "button", "", States{Selected: true}, true, true, 0},
		{"tab", "Advanced", "button", "", States{}, true, true, 0},
		{"button", "Advanced options", "summary", "", States{Expandable: true}, true, true, 0},
		{"textbox", "Hidden field", "input", "", States{}, false, false, 0},
		{"generic", "Focusable card", "div", "", States{}, true, true, 0}, // tabindex=0: named by its text
		{"generic", "Click me", "span", "", States{}, true, true, 0},      // onclick
		{"button", "Ghost", "button", "", States{}, false, false, 0},
		{"button", "Invisible", "button", "", States{}, false, false, 0},
		{"textbox", "Locked field", "input", "", States{Disabled: true}, true, true, 0},
		{"button", "Below the fold", "button", "", States{}, true, false, 0},
		{"contentinfo", "", "footer", "", States{}, true, false, 0},
	}
	seen := map[string]int{}
	for _, tc := range tests {
		key := tc.role + ":" + tc.name + ":" + tc.tag
		n := seen[key]
		seen[key]++
		var got *SnapElement
		for i := range s.Elements {
			e := &s.Elements[i]
			if e.Role == tc.role && e.Name == tc.name && e.Tag == tc.tag {
				if n == 0 {
					got = e
					break
				}
				n--
			}
		}
		if got == nil {
			t.Errorf("missing %s", key)
			continue
		}
		if got.Value != tc.value || got.States != tc.states || got.Visible != tc.visible || got.InViewport != tc.inViewport || got.Level != tc.level {
			t.Errorf("%s: value %q states %+v visible %v inViewport %v level %d; want %q %+v %v %v %d",
				key, got.Value, got.States, got.Visible, got.InViewport, got.Level, tc.value, tc.states, tc.visible, tc.inViewport, tc.level)
		}
		if got.Selector == "" || got.Ref <= 0 || got.Occluded {
			t.Errorf("%s: selector %q ref %d occluded %v", key, got.Selector, got.Ref, got.Occluded)
		}
	}
	// Hidden inputs and plain text are not listed; nor the <option>s.
	for _, e := range s.Elements {
		if e.Type == "hidden" || e.Role == "option" || e.Role == "paragraph" {
			t.Errorf("unexpected element %+v", e)
		}
	}
	// Without Headings the heading is left out, everything else is the same.
	s2, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Elements) != len(s.Elements)-1 {
		t.Errorf("without headings: %d elements, with: %d", len(s2.Elements), len(s.Elements))
	}
	// Snapshot entries ground to live elements.
	i := snapFind(t, s, "button", "More")
	el, err := s.Element(ctx, i)
	if err != nil || el.Role != "button" || el.Name != "More" || el.Fingerprint.Tag != "button" {
		t.Errorf("Element(%d) = %+v, %v", i, el, err)
	}
	if _, err := s.Element(ctx, len(s.Elements)); !IsCode(err, CodeNotFound) {
		t.Errorf("Element(out of range) err = %v", err)
	}
}

func TestSnapshotShadowAndFrames(t *testing.T) {
	t.Parallel()
	t.Run("shadow", func(t *testing.T) {
		t.Parallel()
		p, ctx := groundOpen(t, "ground_shadow.html")
		s, err := p.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct{ role, name, sel string }{
			{"form", "Login", "login-box >>> form"},
			{"textbox", "Username", "login-box >>> #u"},
			{"textbox", "Passcode", `login-box >>> input[name="pass"]`},
			{"button", "Sign in", `login-box >>> [data-testid="shadow-submit"]`},
			{"switch", "Remember me", "login-box >>> fancy-toggle >>> div"},
			{"button", "Outside", "button"},
		} {
			e := s.Elements[snapFind(t, s, w.role, w.name)]
			if e.Selector != w.sel || !e.Visible || e.Occluded || e.Frame != "" {
				t.Errorf("%s %q: %+v, want selector %q", w.role, w.name, e, w.sel)
			}
		}
		// Document order: the shadow content comes right after its host,
		// before the light-DOM button that follows it.
		if snapFind(t, s, "button", "Sign in") > snapFind(t, s, "button", "Outside") {
			t.Errorf("shadow content out of document order")
		}
	})
	t.Run("iframe", func(t *testing.T) {
		t.Parallel()
		p, ctx := groundOpen(t, "ground_frame.html")
		if err := p.groundWaitFrames(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := p.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e := s.Elements[snapFind(t, s, "button", "Pay now")]
		if e.Frame != "#pay" || !e.Visible || !e.InViewport || e.Occluded {
			t.Errorf("frame button %+v", e)
		}
		x, y := e.Box.Center()
		if !groundEvalBool(t, ctx, p, `return mk.elementAt(args[0], args[1]).id === 'pay-btn'`, x, y) {
			t.Errorf("box %+v is not in top-level coordinates", e.Box)
		}
		// Scrolled out of the iframe's own viewport: visible, but not in
		// the viewport, even though its box lies inside the top-level one.
		deep := s.Elements[snapFind(t, s, "button", "Deep in frame")]
		if !deep.Visible || deep.InViewport || deep.Occluded || deep.Box.Y > 800+1100 || deep.Box.Y < 1000 {
			t.Errorf("button below the iframe fold: %+v", deep)
		}
		if snapFind(t, s, "textbox", "Card number") > snapFind(t, s, "button", "Pay later") {
			t.Errorf("iframe content out of document order")
		}
	})
}

func TestSnapshotOccluded(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_occluded.html")
	s, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		role, name string
		occluded   bool
	}{
		{"button", "Buy now", true},      // under the fixed cookie banner
		{"button", "Accept", false},      // the banner's own button
		{"button", "Free button", false}, // nothing on top
		{"button", "Edge", false},        // covered at the left, centre free
		{"button", "Shadow action", false},
	}
	for _, tc := range tests {
		e := s.Elements[snapFind(t, s, tc.role, tc.name)]
		if e.Occluded != tc.occluded || !e.Visible || !e.InViewport {
			t.Errorf("%s %q: occluded %v visible %v inViewport %v, want occluded %v", tc.role, tc.name, e.Occluded, e.Visible, e.InViewport, tc.occluded)
		}
	}
	// opacity:0 inputs count as hidden (the user sees the styled label).
	if e := s.Elements[snapFind(t, s, "checkbox", "Fancy")]; e.Visible {
		t.Errorf("opacity:0 checkbox reported visible: %+v", e)
	}
	menu := s.ActionMenu()
	if !strings.Contains(menu, `button "Buy now" (occluded)`) {
		t.Errorf("menu does not flag the occluded button:\n%s", menu)
	}
	// Removing the banner clears the occlusion.
	if _, err := p.rod.Context(ctx).Eval(`() => document.getElementById('banner').remove()`); err != nil {
		t.Fatal(err)
	}
	s, err = p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Elements[snapFind(t, s, "button", "Buy now")]; e.Occluded {
		t.Errorf("still occluded after the banner left: %+v", e)
	}
}

func TestSnapshotSignals(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_signals.html")
	s, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sig := s.Signals
	// Dialogs: the visible alertdialog and the modal <dialog>; the hidden
	// one is not open for a user.
	var dialogs []string
	for _, d := range sig.Dialogs {
		dialogs = append(dialogs, d.Role+":"+d.Name+":"+map[bool]string{true: "modal", false: "modeless"}[d.Modal])
		if s.Elements[d.Index].Name != d.Name {
			t.Errorf("dialog index %d points at %+v", d.Index, s.Elements[d.Index])
		}
	}
	wantDialogs := []string{"alertdialog:Session expiring:modal", "dialog:Confirm delete:modal"}
	if strings.Join(dialogs, "|") != strings.Join(wantDialogs, "|") {
		t.Errorf("dialogs %v, want %v", dialogs, wantDialogs)
	}
	if len(sig.Dialogs) == 2 && !strings.Contains(sig.Dialogs[1].Text, "Delete 3 files?") {
		t.Errorf("dialog text %q", sig.Dialogs[1].Text)
	}
	// Validation: the required field after the submit attempt (browser
	// message), and both aria-invalid fields with their linked messages.
	got := map[string]string{}
	for _, v := range sig.Validation {
		got[v.Name] = v.Message
	}
	if m := got["Name"]; m == "" {
		t.Errorf("required field: no validation message (%v)", got)
	}
	if m := got["Email"]; m != "Enter a valid email address" && !strings.Contains(m, "@") {
		t.Errorf("Email message %q", m)
	}
	if m := got["ZIP"]; m != "ZIP must be 5 digits" {
		t.Errorf("ZIP message %q", m)
	}
	if len(got) != 3 {
		t.Errorf("validation %v, want 3 fields", got)
	}
	// Live regions: the toast and the assertive region once (its nested
	// status is part of it); neither the empty nor the hidden one.
	var live []string
	for _, l := range sig.Live {
		live = append(live, l.Live+":"+l.Text)
	}
	wantLive := []string{"polite:Profile saved", "assertive:Connection lost nested status"}
	if strings.Join(live, "|") != strings.Join(wantLive, "|") {
		t.Errorf("live %q, want %q", live, wantLive)
	}
	menu := s.ActionMenu()
	for _, want := range []string{
		`! open modal dialog [`, `"Confirm delete"`,
		`! invalid [`, `"ZIP": ZIP must be 5 digits`,
		`! status: "Profile saved"`,
	} {
		if !strings.Contains(menu, want) {
			t.Errorf("menu lacks %q:\n%s", want, menu)
		}
	}
}

func TestActionMenu(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_page.html")
	if _, err := p.rod.Context(ctx).Eval(`() => { const e = document.getElementById('age'); e.setAttribute('aria-errormessage', 'x'); }`); err != nil {
		t.Fatal(err)
	}
	s, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	menu := s.ActionMenu()
	lines := strings.Split(strings.TrimRight(menu, "\n"), "\n")
	// Each numbered line is the element at that index.
	for _, l := range lines {
		if !strings.HasPrefix(l, "[") {
			continue
		}
		var i int
		if _, err := snapMenuIndex(l, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		e := s.Elements[i]
		if !strings.HasPrefix(l, "["+itoa(i)+"] "+e.Role) || !e.Visible {
			t.Errorf("line %q does not describe element %d %+v", l, i, e)
		}
	}
	for _, want := range []string{
		`] button "Save" (disabled)`,
		`] textbox "Email" = "a@b.c" (required, focused)`,
		`] spinbutton "Age" = "12" (invalid)`,
		`] checkbox "In stock" (checked)`,
		`] checkbox "Some sizes" (mixed)`,
		`] button "More" (collapsed)`,
		`] switch "Dark mode" (checked)`,
		`] tab "General" (selected)`,
		`] textbox "Password" = "•••••••"`,
		`] navigation "Primary"`,
		`] button "Below the fold"`,
	} {
		if !strings.Contains(menu, want+"\n") && !strings.Contains(menu, want+" (") && !strings.HasSuffix(menu, want) {
			if !strings.Contains(menu, want) {
				t.Errorf("menu lacks %q:\n%s", want, menu)
			}
		}
	}
	for _, hidden := range []string{`"Ghost"`, `"Invisible"`, `"Hidden field"`, "hunter2"} {
		if strings.Contains(menu, hidden) {
			t.Errorf("menu lists hidden/secret %s:\n%s", hidden, menu)
		}
	}
	all := s.Menu(MenuOptions{Hidden: true})
	if !strings.Contains(all, `button "Ghost" (hidden)`) {
		t.Errorf("Menu(Hidden) lacks the hidden button:\n%s", all)
	}
	// Secrets are redacted from names and values.
	p.AddSecret("a@b.c")
	s, err = p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.ActionMenu(); strings.Contains(m, "a@b.c") || !strings.Contains(m, `"Email" = "`+redact.Marker+`"`) {
		t.Errorf("secret not redacted:\n%s", m)
	}
}

// snapMenuIndex reads the leading "[N]" of a menu line.
func snapMenuIndex(line string, i *int) (int, error) {
	end := strings.IndexByte(line, ']')
	n := 0
	for _, c := range line[1:end] {
		n = n*10 + int(c-'0')
	}
	*i = n
	return 1, nil
}

func TestAnnotatedScreenshot(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_page.html")
	a, err := p.AnnotatedScreenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(a.PNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 || a.Width != 1280 || a.Height != 800 {
		t.Fatalf("screenshot %v (%dx%d), want 1280x800", b, a.Width, a.Height)
	}
	if len(a.Items) < 10 {
		t.Fatalf("only %d badges", len(a.Items))
	}
	for _, it := range a.Items {
		e := a.Snapshot.Elements[it.Index]
		if e.Role != it.Role || e.Name != it.Name || !e.InViewport || e.Landmark {
			t.Errorf("badge %+v does not match element %+v", it, e)
		}
	}
	// The overlay is gone from the page...
	if groundEvalBool(t, ctx, p, `return !!document.getElementById(mk.OVERLAY_ID)`) {
		t.Fatal("overlay still in the page")
	}
	// ...and was really drawn: the badge colour shows at a badge's corner in
	// the annotated PNG but not in a plain screenshot taken now.
	it := a.Items[0]
	for _, cand := range a.Items {
		if cand.Role == "button" && cand.Name == "More" {
			it = cand
		}
	}
	x, y := int(it.Box.X)+3, int(it.Box.Y)+3
	if !snapIsBadge(img, x, y) {
		t.Errorf("no badge colour at (%d,%d) for %+v", x, y, it)
	}
	plain, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}.Call(p.rod.Context(ctx))
	if err != nil {
		t.Fatal(err)
	}
	pimg, err := png.Decode(bytes.NewReader(plain.Data))
	if err != nil {
		t.Fatal(err)
	}
	if snapIsBadge(pimg, x, y) {
		t.Errorf("badge colour still on screen after removal")
	}
	// The page still works normally: the overlay never blocked input.
	s, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Elements {
		if e.Occluded {
			t.Errorf("element occluded after annotation: %+v", e)
		}
	}
}

func init() {
	route("/perception_csp.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>CSP</title><body style="margin:0"><button style="position:absolute;left:100px;top:100px;width:200px;height:50px">Strict</button>`))
	})
}

// TestAnnotatedScreenshotCSP: a page whose CSP forbids inline styles still
// gets its badges (constructed stylesheet), and they are removed.
func TestAnnotatedScreenshotCSP(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_csp.html")
	a, err := p.AnnotatedScreenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(a.PNG))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || a.Items[0].Name != "Strict" {
		t.Fatalf("items %+v", a.Items)
	}
	b := a.Items[0].Box
	if !snapIsBadge(img, int(b.X)+3, int(b.Y)+3) {
		t.Errorf("no badge drawn under a strict CSP")
	}
	if groundEvalBool(t, ctx, p, `return !!document.getElementById(mk.OVERLAY_ID)`) {
		t.Fatal("overlay still in the page")
	}
}

func snapIsBadge(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 > 220 && g>>8 < 40 && b>>8 > 140 && b>>8 < 200
}

// TestSnapshot2000 checks what one scan of a 2,000-element page lists. Its
// cost is measured by BenchmarkSnapshot2000 and make bench, never asserted
// here (house rule: no timed unit tests).
func TestSnapshot2000(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "perception_2000.html")
	s, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	interactive := 0
	for _, e := range s.Elements {
		if !e.Landmark {
			interactive++
		}
	}
	if interactive != 2000 || s.Truncated {
		t.Fatalf("%d interactive elements (truncated %v), want 2000", interactive, s.Truncated)
	}
	// Content, not just a count.
	e := s.Elements[snapFind(t, s, "textbox", "Field 1986")]
	if e.Value != "v1986" || e.Visible != true || e.InViewport {
		t.Errorf("Field 1986: %+v", e)
	}
	if e := s.Elements[snapFind(t, s, "link", "Link 1993")]; e.Tag != "a" {
		t.Errorf("Link 1993: %+v", e)
	}
	t.Logf("snapshot of %d elements: in-page %v, whole call %v", len(s.Elements), s.ScanDuration, s.Duration)
}

// BenchmarkSnapshot2000 times Page.Snapshot on 2,000 interactive elements
// (about 8,000 elements in all). Besides ns/op (the whole call: evaluation,
// CDP transfer, JSON decoding) it reports scan-ms, the in-page wall time of
// the scan, and cpu-ms, the renderer main thread's CPU time per snapshot
// (scan plus result serialisation), which stays meaningful on a loaded
// machine.
func BenchmarkSnapshot2000(b *testing.B) {
	p := newTestPage(b)
	ctx := testCtx(b, 5*time.Minute)
	if err := p.Goto(ctx, fixtureURL("perception_2000.html")); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Snapshot(ctx, SnapshotOptions{}); err != nil {
		b.Fatal(err)
	}
	rp := p.rod.Context(ctx)
	if err := (proto.PerformanceEnable{}).Call(rp); err != nil {
		b.Fatal(err)
	}
	var scan time.Duration
	var cpu float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := snapThreadTime(b, p)
		s, err := p.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cpu += snapThreadTime(b, p) - before
		scan += s.ScanDuration
	}
	b.ReportMetric(float64(scan.Microseconds())/1000/float64(b.N), "scan-ms")
	b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms")
}

// snapThreadTime is the renderer main thread's CPU time in seconds (CDP
// Performance metric ThreadTime): unlike wall time it does not grow when
// other processes compete for the CPU.
func snapThreadTime(b *testing.B, p *Page) float64 {
	b.Helper()
	res, err := proto.PerformanceGetMetrics{}.Call(p.rod)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range res.Metrics {
		if m.Name == "ThreadTime" {
			return m.Value
		}
	}
	b.Fatal("no ThreadTime metric")
	return 0
}
