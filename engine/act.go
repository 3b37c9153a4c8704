package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Execution: actionability checks and input on a grounded *Element.
//
// Every action method has the shape
//
//	func (p *Page) Verb(ctx, el *Element, ..., opt ActOptions) (*ActResult, error)
//
// and follows the same sequence:
//
//  1. Actionability (js/40_act.js mk.actionable): attached, visible, enabled,
//     editable (fill), scrolled into view (block centre) when not fully in
//     the viewport, stable (same box across an animation frame) and receiving
//     the pointer at the action point (an elementFromPoint hit test that
//     drills into open shadow roots and same-origin iframes; the hit must be
//     the element, inside it, or one of its labels). Unless ActOptions.Force,
//     the page is re-checked on every DOM mutation, transition end and
//     animation frame until actionability holds or ActOptions.Wait (bounded
//     by ctx) runs out; the failure is then typed: CodeNotFound (detached),
//     CodeNotInteractable (hidden, disabled, inert, not editable, moving) or
//     CodeOccluded (the message and ActResult.Actionability.Hit name the
//     covering element).
//  2. Input through the chosen Channel: CDP (trusted Input.* events at the
//     computed top-level point; Input.insertText for text) or DOM (events
//     dispatched in the page, values set through the native prototype
//     setter, which React and Vue observe).
//  3. Post-checks of the action itself (the value a fill applied, the state a
//     check reached, the options a select picked, the files an upload set);
//     a mismatch is CodeValueNotApplied or CodeNoEffect with before/after
//     evidence in the ActResult.
//  4. Settle (see ActResult.Navigated and ActResult.Popup): wait for a
//     navigation or popup the action started.
//
// Whenever the element was reached, the *ActResult is returned even
// alongside an error, so the failure handler can read the evidence.

// Channel selects how an action delivers input.
type Channel string

// The input channels.
const (
	// ChannelAuto uses each action's default: CDP for click, hover, fill,
	// press, check and the option clicks of an ARIA select; DOM for native
	// <select>, for scroll, and for fill of inputs that take no typed text
	// (date, time, datetime-local, month, week, color, range).
	ChannelAuto Channel = ""
	// ChannelCDP sends trusted input through the DevTools protocol:
	// Input.dispatchMouseEvent at the element's computed point,
	// Input.insertText and Input.dispatchKeyEvent.
	ChannelCDP Channel = "cdp"
	// ChannelDOM dispatches synthetic events in the page: the full
	// pointer/mouse sequence then el.click() for clicks; the native value
	// setter then bubbling input and change events for fills.
	ChannelDOM Channel = "dom"
)

// DefaultActWait is how long an action waits for its element to become
// actionable when ActOptions.Wait is zero.
const DefaultActWait = 3 * time.Second

// actVerifyWait bounds how long an action waits for its own effect to show
// (a re-rendered field's value, a checkbox state, a selected option) after
// it first reads a mismatch. A matching read returns at once.
const actVerifyWait = 1500 * time.Millisecond

// ActOptions tunes one action. The zero value is the default behaviour.
type ActOptions struct {
	// Channel selects CDP or DOM input; ChannelAuto picks per action.
	Channel Channel `json:"channel,omitempty"`
	// Force skips the actionability checks (except attachment) and acts at
	// once, e.g. to click through a known transparent overlay.
	Force bool `json:"force,omitempty"`
	// Wait bounds the wait for actionability (default DefaultActWait); ctx
	// bounds it too.
	Wait time.Duration `json:"wait,omitempty"`
	// NoWaitAfter returns right after the input, without waiting for a
	// navigation or popup the action started.
	NoWaitAfter bool `json:"no_wait_after,omitempty"`
	// Sensitive marks the filled value as secret: it is registered with
	// Page.AddSecret and redacted in the result, errors and trace.
	Sensitive bool `json:"sensitive,omitempty"`
	// Step is the step index reported in trace events.
	Step int `json:"step,omitempty"`
}

// Point is a position in top-level viewport CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// ActResult is the evidence of one executed action.
type ActResult struct {
	Action Action `json:"action"`
	// Channel is the input channel actually used.
	Channel Channel `json:"channel,omitempty"`
	// Target describes the element acted on.
	Target *Candidate `json:"target,omitempty"`
	// Actionability is the last actionability report (nil with Force or for
	// actions that need none).
	Actionability *Actionability `json:"actionability,omitempty"`
	// Point is where pointer input landed (top-level viewport CSS px), and
	// Hit the element the hit test found there just before the input.
	Point *Point     `json:"point,omitempty"`
	Hit   *Candidate `json:"hit,omitempty"`

	// Fill: the element's value before and after (redacted when Sensitive).
	// Refound is set when the field was replaced during the fill and its
	// value was read from the re-found element.
	ValueBefore string `json:"value_before,omitempty"`
	ValueAfter  string `json:"value_after,omitempty"`
	Refound     bool   `json:"refound,omitempty"`

	// Select: the selected option labels before and after. For an ARIA
	// combobox whose listbox is not rendered (before) or keeps no
	// aria-selected state (after), it is the text the combobox displays.
	SelectedBefore []string `json:"selected_before,omitempty"`
	SelectedAfter  []string `json:"selected_after,omitempty"`
	// Unsure, when set, says why the action could not read its own effect
	// back (select: the widget shows no listbox state, displayed text or
	// value the engine can read after the option was clicked). The action
	// then returns no error and the step's post-conditions decide; a
	// wrong read-back is CodeValueNotApplied, an unsure one never is, so it
	// never leads to acting again.
	Unsure string `json:"unsure,omitempty"`

	// Check/uncheck: the state before and after ("true", "false", "mixed").
	CheckedBefore string `json:"checked_before,omitempty"`
	CheckedAfter  string `json:"checked_after,omitempty"`

	// Upload: the file input used (which may differ from the target), how it
	// was found, and the names of the files it holds afterwards.
	FileInput *Candidate `json:"file_input,omitempty"`
	FileVia   string     `json:"file_via,omitempty"`
	Files     []string   `json:"files,omitempty"`

	// Press: the key sent and the element focused when it was sent.
	Key     string     `json:"key,omitempty"`
	Focused *Candidate `json:"focused,omitempty"`

	// Scroll: the scroll position before and after.
	ScrollBefore *Point `json:"scroll_before,omitempty"`
	ScrollAfter  *Point `json:"scroll_after,omitempty"`

	// NoOp is set when the element was already in the requested state
	// (check, uncheck) and no input was sent.
	NoOp bool `json:"noop,omitempty"`

	// Navigated is set when the action started a navigation of the page; the
	// action returned after the new document's load event. URL is the new
	// URL, Status the document's HTTP status, SameDocument set for
	// history/fragment navigations (no new document).
	Navigated    bool   `json:"navigated,omitempty"`
	SameDocument bool   `json:"same_document,omitempty"`
	URL          string `json:"url,omitempty"`
	Status       int    `json:"status,omitempty"`
	// Popup is the page the action opened (new tab, window.open), loaded;
	// PopupURL its URL.
	Popup    *Page  `json:"-"`
	PopupURL string `json:"popup_url,omitempty"`

	// Notes are free-form remarks (fallbacks taken, waits cut short).
	Notes []string `json:"notes,omitempty"`
	// Duration is the whole action; ActionabilityTime the part spent
	// checking and waiting for actionability, SettleTime the part spent
	// waiting for the navigation or popup the action started.
	Duration          time.Duration `json:"duration"`
	ActionabilityTime time.Duration `json:"actionability_time,omitempty"`
	SettleTime        time.Duration `json:"settle_time,omitempty"`
}

func (r *ActResult) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// Click clicks the element: by default a CDP mouse press and release at the
// centre of its visible box after the actionability checks; with ChannelDOM
// the pointer/mouse event sequence and el.click(). It returns after any
// navigation the click started has loaded, and with ActResult.Popup set when
// it opened a page.
func (p *Page) Click(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActClick, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	w := a.watch(ctx)
	defer w.stop()
	err := a.clickRef(ctx, el.Ref, opt.Channel, false)
	if err == nil {
		err = w.settle(ctx, a.res, !a.settled, opt.NoWaitAfter)
	}
	return a.end(err)
}

// Hover moves the pointer onto the element (CDP mouseMoved at its centre, or
// the DOM pointerover/mouseover/mouseenter/mousemove events).
func (p *Page) Hover(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActHover, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	ch := a.channel(opt.Channel, ChannelCDP)
	req := actReq{pointer: true}
	if ch == ChannelDOM {
		req = actReq{visible: true, noStable: true}
	}
	rep, err := a.ready(ctx, el.Ref, req)
	if err != nil {
		return a.end(err)
	}
	if ch == ChannelDOM {
		var out struct{ OK bool }
		if err := p.call(ctx, &out, mkActDomHover, el.Ref); err != nil {
			return a.end(err)
		}
		if !out.OK {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
		return a.end(nil)
	}
	pt := rep.actPoint()
	if pt == nil {
		return a.end(errorf(CodeNotInteractable, "no point to hover"))
	}
	a.res.Point, a.res.Hit = pt, rep.Hit
	return a.end(p.mouseMove(ctx, *pt))
}

// Fill replaces the element's value with value. Inputs, textareas and
// contenteditable elements are focused, their content selected, and value
// typed with Input.insertText (ChannelCDP, the default) or set through the
// native value setter followed by input and change events (ChannelDOM; also
// used for date/time/color/range inputs, which take no typed text). Filling
// "" deletes the content.
//
// The value is then verified as applied by re-reading the element — or, when
// the page replaced the node while re-rendering, the element re-found by its
// fingerprint — waiting briefly for a re-render to settle. A mismatch is
// CodeValueNotApplied with ActResult.ValueBefore/ValueAfter.
func (p *Page) Fill(ctx context.Context, el *Element, value string, opt ActOptions) (*ActResult, error) {
	if opt.Sensitive {
		p.AddSecret(value)
	}
	a := p.begin(ctx, vocab.ActFill, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	w := a.watch(ctx)
	defer w.stop()
	rep, err := a.ready(ctx, el.Ref, actReq{editable: true, fillPrep: true})
	if err != nil {
		return a.end(err)
	}
	var prep struct {
		OK      bool   `json:"ok"`
		Reason  string `json:"reason"`
		Before  string `json:"before"`
		Type    string `json:"type"`
		DOMOnly bool   `json:"domOnly"`
		Focused bool   `json:"focused"`
	}
	if len(rep.prep) > 0 && string(rep.prep) != "null" {
		if err := json.Unmarshal(rep.prep, &prep); err != nil {
			return a.end(&Error{Code: CodeBrowser, Msg: "decode fill preparation", Err: err})
		}
	} else if err := p.call(ctx, &prep, mkActFillPrep, el.Ref); err != nil {
		return a.end(err)
	}
	if !prep.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	a.res.ValueBefore = prep.Before
	ch := a.channel(opt.Channel, ChannelCDP)
	if prep.DOMOnly && ch == ChannelCDP {
		if opt.Channel == ChannelCDP {
			a.res.note("input type=%s takes no typed text: value set through the DOM", prep.Type)
		}
		ch = ChannelDOM
	}
	a.res.Channel = ch
	want := value
	if prep.Type == "textarea" {
		want = strings.ReplaceAll(want, "\r\n", "\n")
	}
	var (
		got     string
		refound bool
	)
	switch {
	case ch == ChannelDOM:
		var out struct {
			OK bool `json:"ok"`
		}
		if err := p.call(ctx, &out, mkSetValue, el.Ref, value); err != nil {
			return a.end(err)
		}
		if !out.OK {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
		got, refound, err = a.readValue(ctx, el, want)
	case !prep.Focused:
		return a.end(errorf(CodeNotInteractable, "the element did not take focus"))
	case value == "":
		if prep.Before != "" {
			if err := p.pressKeys(ctx, "Delete"); err != nil {
				return a.end(err)
			}
		}
		got, refound, err = a.readValue(ctx, el, want)
	default:
		got, refound, err = a.insertAndRead(ctx, el, value, want)
	}
	a.res.ValueAfter, a.res.Refound = got, refound
	if err != nil {
		return a.end(err)
	}
	if got != want {
		return a.end(errorf(CodeValueNotApplied, "value not applied: want %q, field holds %q (before %q)", want, got, prep.Before))
	}
	return a.end(w.settle(ctx, a.res, false, opt.NoWaitAfter))
}

// Scroll scrolls. With el nil it scrolls the page by deltaY CSS pixels; with
// el and deltaY 0 it scrolls el into the centre of the viewport (verifying
// that it is in view afterwards); with el and deltaY it scrolls el's nearest
// scrollable container (el included) by deltaY. The default channel sets
// the scroll position through the DOM (behaviour "instant"); ChannelCDP
// sends a mouse wheel event at the viewport's or the element's centre and
// waits for the scroll to settle. ActResult.ScrollBefore/After hold the
// positions; reaching the end of the scroll range is not an error.
func (p *Page) Scroll(ctx context.Context, el *Element, deltaY float64, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActScroll, el, opt)
	ch := a.channel(opt.Channel, ChannelDOM)
	a.res.Channel = ch
	ref := 0
	if el != nil {
		ref = el.Ref
	}
	if el != nil && deltaY == 0 {
		a.res.Channel = ChannelDOM
		var out struct {
			OK         bool   `json:"ok"`
			Before     *Point `json:"before"`
			After      *Point `json:"after"`
			Box        *Box   `json:"box"`
			InViewport bool   `json:"inViewport"`
		}
		if err := p.call(ctx, &out, mkActScrollIntoView, ref); err != nil {
			return a.end(err)
		}
		if !out.OK {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
		a.res.ScrollBefore, a.res.ScrollAfter = out.Before, out.After
		if !out.InViewport {
			return a.end(errorf(CodeNotInteractable, "element is not in the viewport after scrolling (hidden or zero-sized)"))
		}
		return a.end(nil)
	}
	if ch == ChannelCDP {
		var pos struct {
			Pos *Point `json:"pos"`
		}
		if err := p.call(ctx, &pos, mkActScrollPos, ref); err != nil {
			return a.end(err)
		}
		a.res.ScrollBefore = pos.Pos
		at := Point{}
		if el != nil {
			rep, err := a.ready(ctx, ref, actReq{visible: true, noStable: true})
			if err != nil {
				return a.end(err)
			}
			if pt := rep.actPoint(); pt != nil {
				at = *pt
			}
		} else {
			var vp struct{ W, H float64 }
			if err := p.evalJSON(ctx, &vp, `() => ({W: innerWidth, H: innerHeight})`); err != nil {
				return a.end(err)
			}
			at = Point{X: vp.W / 2, Y: vp.H / 2}
		}
		a.res.Point = &at
		p.setPointer(nil) // a wheel event at a point may move the pointer there
		if err := (proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseWheel, X: at.X, Y: at.Y, DeltaY: deltaY}).Call(p.rod.Context(ctx)); err != nil {
			return a.end(cdpErr(ctx, "mouse wheel", err))
		}
		var after *Point
		if err := p.call(ctx, &after, mkActWaitScroll, ref, waitMs(ctx, time.Second)); err != nil {
			return a.end(err)
		}
		a.res.ScrollAfter = after
		return a.end(nil)
	}
	var out struct {
		OK     bool   `json:"ok"`
		Before *Point `json:"before"`
		After  *Point `json:"after"`
	}
	if err := p.call(ctx, &out, mkActScrollBy, ref, deltaY); err != nil {
		return a.end(err)
	}
	if !out.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	a.res.ScrollBefore, a.res.ScrollAfter = out.Before, out.After
	return a.end(nil)
}

// readValue reads the field's value, waiting up to actVerifyWait for it to
// equal want. When the node was replaced (a framework re-render), the field
// is re-found by its fingerprint and read there.
func (a *actor) readValue(ctx context.Context, el *Element, want string) (string, bool, error) {
	var rv struct {
		Attached bool   `json:"attached"`
		Value    string `json:"value"`
	}
	if err := a.p.call(ctx, &rv, mkActReadValue, el.Ref, want, waitMs(ctx, actVerifyWait)); err != nil {
		return "", false, err
	}
	if rv.Attached {
		return rv.Value, false, nil
	}
	nel, err := a.p.refindElement(ctx, el)
	if err != nil {
		return "", true, &Error{Code: CodeValueNotApplied, Msg: "the field was replaced and could not be re-found to verify its value", Err: err}
	}
	if err := a.p.call(ctx, &rv, mkActReadValue, nel.Ref, want, waitMs(ctx, actVerifyWait)); err != nil {
		return "", true, err
	}
	return rv.Value, true, nil
}

// insertAndRead types value into the focused field and reads it back with
// the two requests in flight at once: the read waits in-page for the value
// to equal want (up to actVerifyWait), so it cannot report before the text
// arrived, and the fill costs one round trip instead of two.
func (a *actor) insertAndRead(ctx context.Context, el *Element, value, want string) (string, bool, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type read struct {
		got     string
		refound bool
		err     error
	}
	readc := make(chan read, 1)
	go func() {
		got, refound, err := a.readValue(rctx, el, want)
		readc <- read{got, refound, err}
	}()
	if err := (proto.InputInsertText{Text: value}).Call(a.p.rod.Context(ctx)); err != nil {
		cancel()
		<-readc
		return "", false, cdpErr(ctx, "insert text", err)
	}
	r := <-readc
	return r.got, r.refound, r.err
}

// refindElement re-finds an element the page replaced, by its fingerprint.
func (p *Page) refindElement(ctx context.Context, el *Element) (*Element, error) {
	return p.Refind(ctx, el.Fingerprint)
}
