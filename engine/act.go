package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
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

// actPopupWait bounds the wait for a popup the browser announced to be
// attached, and for a navigation the page requested to start.
const actPopupWait = 5 * time.Second

// actLoadWait is how long an action waits for a committed document's load
// event before settling for DOMContentLoaded.
const actLoadWait = 5 * time.Second

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

// Actionability is the in-page report on whether an element can take an
// action (js/40_act.js mk.actionable).
type Actionability struct {
	OK bool `json:"ok"`
	// Code is the diagnosis when !OK: not_found, not_interactable or occluded.
	Code   Code   `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`

	Attached        bool `json:"attached"`
	Visible         bool `json:"visible"`
	Stable          bool `json:"stable"`
	Enabled         bool `json:"enabled"`
	Editable        bool `json:"editable"`
	InViewport      bool `json:"in_viewport"`
	ReceivesPointer bool `json:"receives_pointer"`
	// Scrolled is set when the element was scrolled into view.
	Scrolled bool `json:"scrolled"`
	// Box is the acted-on element's box after scrolling.
	Box *Box `json:"box,omitempty"`
	// Point is where a pointer action lands: the centre of the part of the
	// box inside the viewport.
	Point *Point `json:"point,omitempty"`
	// Hit is the element found at Point (the occluder when Code is
	// occluded).
	Hit *Candidate `json:"hit,omitempty"`
	// Via is the element acted on instead of the target: the visible label
	// of a hidden native checkbox or radio.
	Via *Candidate `json:"via,omitempty"`
	// Target describes the checked element.
	Target *Candidate `json:"target,omitempty"`

	viaRef int
	guard  int             // the click guard installed with the report (0: none)
	prep   json.RawMessage // the fill preparation run with the report, if asked
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

// ---- public actions ----

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
		if err := p.call(ctx, &out, "actDomHover", el.Ref); err != nil {
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
	} else if err := p.call(ctx, &prep, "actFillPrep", el.Ref); err != nil {
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
	if ch == ChannelDOM {
		var out struct {
			OK bool `json:"ok"`
		}
		if err := p.call(ctx, &out, "setValue", el.Ref, value); err != nil {
			return a.end(err)
		}
		if !out.OK {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
	} else {
		if !prep.Focused {
			return a.end(errorf(CodeNotInteractable, "the element did not take focus"))
		}
		rp := p.rod.Context(ctx)
		if value == "" {
			if prep.Before != "" {
				if err := p.pressKeys(ctx, "Delete"); err != nil {
					return a.end(err)
				}
			}
		} else if err := (proto.InputInsertText{Text: value}).Call(rp); err != nil {
			return a.end(cdpErr(ctx, "insert text", err))
		}
	}
	want := value
	if prep.Type == "textarea" {
		want = strings.ReplaceAll(want, "\r\n", "\n")
	}
	got, refound, err := a.readValue(ctx, el, want)
	a.res.ValueAfter, a.res.Refound = got, refound
	if err != nil {
		return a.end(err)
	}
	if got != want {
		return a.end(errorf(CodeValueNotApplied, "value not applied: want %q, field holds %q (before %q)", want, got, prep.Before))
	}
	return a.end(w.settle(ctx, a.res, false, opt.NoWaitAfter))
}

// Select chooses options by their visible label (native options also match
// by value). A native <select> (single or multiple) gets exactly these
// options selected through the DOM, with input and change events. An ARIA
// combobox is opened (clicked; ArrowDown when clicking shows no listbox),
// each option is found by accessible name in the listbox it controls
// (aria-controls/aria-owns, its active descendant's listbox, else the
// nearest visible role=listbox) and clicked; an editable combobox that does
// not list the option is typed into to filter it. A role=listbox target
// has its options clicked directly; in a multiselectable listbox the
// selection is toggled to exactly the given options.
//
// The result is verified: each option must be aria-selected, or shown in
// the combobox's value or text. A missing option is CodeNotFound listing
// the options present as candidates; a selection that did not take is
// CodeValueNotApplied.
func (p *Page) Select(ctx context.Context, el *Element, options []string, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActSelect, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	w := a.watch(ctx)
	defer w.stop()
	if len(options) == 0 {
		return a.end(errorf(CodeInvalid, "select needs at least one option"))
	}
	var combo actCombo
	if err := p.call(ctx, &combo, "actCombo", el.Ref); err != nil {
		return a.end(err)
	}
	if !combo.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	var err error
	if combo.Kind == "native" {
		err = a.selectNative(ctx, el, options)
	} else {
		err = a.selectARIA(ctx, el, combo, options)
	}
	if err == nil {
		err = w.settle(ctx, a.res, true, opt.NoWaitAfter)
	}
	return a.end(err)
}

// Check makes a checkbox, radio, switch (native or ARIA role=checkbox /
// switch / radio / menuitemcheckbox) checked. The target may also be a
// label or a wrapper holding one such control. Nothing is sent when it is
// already checked (ActResult.NoOp). Otherwise the element is clicked (a
// hidden native input through its visible label) and the new state verified;
// a state that did not change is CodeNoEffect.
func (p *Page) Check(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	return p.setChecked(ctx, vocab.ActCheck, el, true, opt)
}

// Uncheck is Check towards the unchecked state. Unchecking a radio button is
// CodeInvalid.
func (p *Page) Uncheck(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	return p.setChecked(ctx, vocab.ActUncheck, el, false, opt)
}

// Press sends a key or chord such as "Enter", "Tab", "Escape", "ArrowDown",
// "Control+A", "Shift+Tab" or "a". With el it first focuses the element;
// with el nil the key goes to whatever has focus. ChannelCDP (the default)
// sends trusted keyDown/keyUp events, so default actions (typing, form
// submission on Enter, focus moves on Tab) happen; ChannelDOM only
// dispatches synthetic keydown/keyup KeyboardEvents to the focused element,
// which run page handlers but no browser default action.
func (p *Page) Press(ctx context.Context, el *Element, key string, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActPress, el, opt)
	a.res.Key = key
	chord, err := parseChord(key)
	if err != nil {
		return a.end(err)
	}
	w := a.watch(ctx)
	defer w.stop()
	if el != nil {
		if _, err := a.ready(ctx, el.Ref, actReq{}); err != nil {
			return a.end(err)
		}
		var f struct {
			OK      bool       `json:"ok"`
			Focused bool       `json:"focused"`
			Active  *Candidate `json:"active"`
		}
		if err := p.call(ctx, &f, "actFocus", el.Ref); err != nil {
			return a.end(err)
		}
		if !f.OK {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
		if !f.Focused {
			a.res.note("the element did not take focus; the key goes to %s", describeCand(f.Active))
		}
	}
	var focused *Candidate
	if err := p.call(ctx, &focused, "actFocused"); err != nil {
		return a.end(err)
	}
	a.res.Focused = focused
	ch := a.channel(opt.Channel, ChannelCDP)
	a.res.Channel = ch
	if ch == ChannelDOM {
		var ok bool
		if err := p.call(ctx, &ok, "actDomKey", chord.jsKeys()); err != nil {
			return a.end(err)
		}
	} else if err := p.sendChord(ctx, chord); err != nil {
		return a.end(err)
	}
	return a.end(w.settle(ctx, a.res, true, opt.NoWaitAfter))
}

// Upload sets files (paths on this machine) on a file input with
// DOM.setFileInputFiles, which fires the input's input and change events.
// The target may be the <input type=file> itself — hidden inputs are fine —
// or a visible button or label standing for a hidden one: its label
// control, an aria-controls/for reference, a file input inside it, or the
// only file input in its nearest ancestor. When none is tied to it
// structurally, the target is clicked with file-chooser interception on and
// the input that opened the chooser is used. The input's files are then
// verified by name.
func (p *Page) Upload(ctx context.Context, el *Element, files []string, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActUpload, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	a.res.Channel = ChannelCDP
	if len(files) == 0 {
		return a.end(errorf(CodeInvalid, "upload needs at least one file"))
	}
	abs := make([]string, len(files))
	names := make([]string, len(files))
	for i, f := range files {
		fa, err := filepath.Abs(f)
		if err == nil {
			_, err = os.Stat(fa)
		}
		if err != nil {
			return a.end(&Error{Code: CodeInvalid, Msg: "upload file " + f, Err: err})
		}
		abs[i], names[i] = fa, filepath.Base(fa)
	}
	w := a.watch(ctx)
	defer w.stop()
	var fi struct {
		Ref      int        `json:"ref"`
		How      string     `json:"how"`
		Multiple bool       `json:"multiple"`
		Disabled bool       `json:"disabled"`
		Reason   string     `json:"reason"`
		Target   *Candidate `json:"target"`
	}
	if err := p.call(ctx, &fi, "actFileInput", el.Ref); err != nil {
		return a.end(err)
	}
	if fi.Reason == "detached" {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	if fi.Ref == 0 {
		return a.end(a.uploadViaChooser(ctx, el, abs, names, w))
	}
	a.res.FileInput, a.res.FileVia = fi.Target, fi.How
	if fi.Disabled {
		return a.end(errorf(CodeNotInteractable, "the file input is disabled"))
	}
	if len(abs) > 1 && !fi.Multiple {
		return a.end(errorf(CodeInvalid, "%d files for a file input without multiple", len(abs)))
	}
	h, err := p.callObject(ctx, "actDeref", fi.Ref)
	if err != nil {
		return a.end(err)
	}
	if h == nil {
		return a.end(errorf(CodeNotFound, "file input is detached"))
	}
	if err := (proto.DOMSetFileInputFiles{Files: abs, ObjectID: h.Object.ObjectID}).Call(p.rod.Context(ctx)); err != nil {
		return a.end(cdpErr(ctx, "set files", err))
	}
	var got struct {
		OK    bool     `json:"ok"`
		Names []string `json:"names"`
	}
	if err := p.call(ctx, &got, "actFiles", fi.Ref); err != nil {
		return a.end(err)
	}
	a.res.Files = got.Names
	if !slices.Equal(got.Names, names) {
		return a.end(errorf(CodeValueNotApplied, "file input holds %q, want %q", got.Names, names))
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
		if err := p.call(ctx, &out, "actScrollIntoView", ref); err != nil {
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
		if err := p.call(ctx, &pos, "actScrollPos", ref); err != nil {
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
		if err := p.call(ctx, &after, "actWaitScroll", ref, waitMs(ctx, time.Second)); err != nil {
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
	if err := p.call(ctx, &out, "actScrollBy", ref, deltaY); err != nil {
		return a.end(err)
	}
	if !out.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	a.res.ScrollBefore, a.res.ScrollAfter = out.Before, out.After
	return a.end(nil)
}

// Actionable evaluates, without waiting, whether el can take action (click,
// hover, fill, check, ...): the report the action would start from. It
// scrolls el into view when needed. The failure handler uses it to diagnose.
func (p *Page) Actionable(ctx context.Context, el *Element, action Action) (*Actionability, error) {
	if el == nil {
		return nil, errorf(CodeInvalid, "actionable needs an element")
	}
	req := actReqFor(action)
	req.wait = -1
	return p.actionable(ctx, el.Ref, req, ActOptions{})
}

// ---- action plumbing ----

// actor carries one action's options, result and timing.
type actor struct {
	before []int // select: listboxes visible before the combobox opened
	p      *Page
	opt    ActOptions
	el     *Element
	res    *ActResult
	start  time.Time
	// settled is set when the click's guard round trip also gave the page
	// its settle turn.
	settled bool
}

func (p *Page) begin(ctx context.Context, action Action, el *Element, opt ActOptions) *actor {
	a := &actor{p: p, opt: opt, el: el, res: &ActResult{Action: action}, start: time.Now()}
	if el != nil {
		a.res.Target = &Candidate{Role: el.Role, Name: el.Name, Tag: el.Tag, Selector: el.Selector, Frame: el.Frame, Visible: el.Visible}
	}
	return a
}

// end finishes the action: timing, redaction, the trace event. It returns
// the result (nil only when nothing was reached) and the error.
func (a *actor) end(err error) (*ActResult, error) {
	a.res.Duration = time.Since(a.start)
	secrets := a.p.Secrets()
	if len(secrets) > 0 {
		a.res.ValueBefore = Redact(a.res.ValueBefore, secrets)
		a.res.ValueAfter = Redact(a.res.ValueAfter, secrets)
		var e *Error
		if errors.As(err, &e) {
			e.Msg = Redact(e.Msg, secrets)
		}
	}
	if a.opt.Sensitive {
		if a.res.ValueBefore != "" {
			a.res.ValueBefore = Redacted
		}
		if a.res.ValueAfter != "" {
			a.res.ValueAfter = Redacted
		}
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{Code: CodeBrowser, Msg: string(a.res.Action), Err: err}
		}
	}
	data := map[string]any{"result": a.res}
	if err != nil {
		data["error"] = err.Error()
		data["code"] = string(codeOf(err))
	}
	a.p.emit(Event{Kind: EvAction, Step: a.opt.Step, Action: a.res.Action, Duration: a.res.Duration, Data: traceData(data)})
	return a.res, err
}

// traceData turns the result into JSON-like values so trace redaction
// reaches every string in it.
func traceData(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if r, ok := v.(*ActResult); ok {
			out[k] = structToMap(r)
			continue
		}
		out[k] = v
	}
	return out
}

func codeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func (a *actor) channel(want, def Channel) Channel {
	if want == ChannelAuto {
		want = def
	}
	a.res.Channel = want
	return want
}

// actReq says which actionability properties an action needs.
type actReq struct {
	visible  bool // hidden elements are not interactable
	pointer  bool // visible, stable, and hit at the action point
	editable bool // fill: an editable text control
	label    bool // a hidden native checkbox/radio may act through its label
	noStable bool
	guard    bool          // install the click guard when actionable (saves a round trip)
	fillPrep bool          // run actFillPrep when actionable (saves a round trip)
	wait     time.Duration // 0: ActOptions.Wait; <0: no wait
}

func actReqFor(action Action) actReq {
	switch action {
	case vocab.ActClick, vocab.ActHover:
		return actReq{pointer: true}
	case vocab.ActCheck, vocab.ActUncheck:
		return actReq{pointer: true, label: true}
	case vocab.ActFill:
		return actReq{editable: true}
	case vocab.ActSelect, vocab.ActPress, vocab.ActScroll:
		return actReq{visible: true, noStable: true}
	default:
		return actReq{}
	}
}

// actionable runs mk.actionable for ref, waiting per req.wait / opt.Wait.
// A failed report is returned together with its typed error.
func (p *Page) actionable(ctx context.Context, ref int, req actReq, opt ActOptions) (*Actionability, error) {
	wait := opt.Wait
	if wait == 0 {
		wait = DefaultActWait
	}
	if req.wait < 0 {
		wait = 0
	} else if req.wait > 0 {
		wait = req.wait
	}
	jsOpt := map[string]any{
		"visible":  req.visible || req.pointer || req.editable,
		"enabled":  true,
		"editable": req.editable,
		"pointer":  req.pointer,
		"stable":   req.pointer && !req.noStable,
		"label":    req.label,
		"wait":     waitMs(ctx, wait),
		"guard":    req.guard,
		"fillPrep": req.fillPrep,
	}
	if opt.Force {
		jsOpt = map[string]any{"visible": false, "enabled": false, "editable": false, "pointer": false, "stable": false, "label": req.label, "wait": 0}
	}
	// The report decodes straight into Actionability; the refs that stay
	// unexported ride beside it.
	var rep struct {
		Actionability
		ViaRef int             `json:"viaRef"`
		Guard  int             `json:"guard"`
		Prep   json.RawMessage `json:"prep"`
	}
	if err := p.call(ctx, &rep, "actionable", ref, jsOpt); err != nil {
		return nil, err
	}
	out := rep.Actionability
	out.viaRef, out.guard, out.prep = rep.ViaRef, rep.Guard, rep.Prep
	if out.OK {
		return &out, nil
	}
	code := out.Code
	if code == "" {
		code = CodeNotInteractable
	}
	e := &Error{Code: code, Msg: out.Reason}
	if ctx.Err() != nil {
		e.Err = ctx.Err()
	}
	return &out, e
}

// ready checks actionability for the action's element and records the
// report in the result.
func (a *actor) ready(ctx context.Context, ref int, req actReq) (*Actionability, error) {
	start := time.Now()
	defer func() { a.res.ActionabilityTime += time.Since(start) }()
	rep, err := a.p.actionable(ctx, ref, req, a.opt)
	if rep != nil {
		a.res.Actionability = rep
	}
	return rep, err
}

func (r *Actionability) actPoint() *Point {
	if r == nil {
		return nil
	}
	if r.Point != nil {
		return r.Point
	}
	if r.Box != nil {
		x, y := r.Box.Center()
		return &Point{X: x, Y: y}
	}
	return nil
}

// clickRef clicks the element with ref through ch after the actionability
// checks, recording point and hit evidence. label lets a hidden native
// checkbox/radio be clicked through its visible label.
//
// A CDP click is guarded (mk.actGuard): if the press lands on something
// other than the element — something moved over it between the hit test and
// the input — the page never sees that click, and the click is retried from
// the actionability checks while the actionability wait lasts; after that
// it fails with CodeOccluded naming what was hit.
func (a *actor) clickRef(ctx context.Context, ref int, ch Channel, label bool) error {
	ch = a.channel(ch, ChannelCDP)
	wait := a.opt.Wait
	if wait <= 0 {
		wait = DefaultActWait
	}
	deadline := time.Now().Add(wait)
	for {
		req := actReq{pointer: true, label: label, guard: !a.opt.Force, wait: time.Until(deadline)}
		if ch == ChannelDOM {
			// DOM events reach the element whatever covers it: only
			// visibility and enablement matter (the way past a transparent
			// overlay).
			req = actReq{visible: true, noStable: true, label: label, wait: time.Until(deadline)}
		}
		if req.wait <= 0 {
			req.wait = -1
		}
		rep, err := a.ready(ctx, ref, req)
		if err != nil {
			return err
		}
		target := ref
		if rep.viaRef != 0 {
			target = rep.viaRef
		}
		a.res.Hit = rep.Hit
		if ch == ChannelDOM {
			var out struct{ OK bool }
			if err := a.p.call(ctx, &out, "actDomClick", target); err != nil {
				return err
			}
			if !out.OK {
				return errorf(CodeNotFound, "element is detached")
			}
			return nil
		}
		pt := rep.actPoint()
		if pt == nil {
			// Force skips geometry: compute the point now.
			forced, err := a.p.actionable(ctx, target, actReq{visible: true, noStable: true, wait: -1}, ActOptions{})
			if err != nil && forced == nil {
				return err
			}
			if pt = forced.actPoint(); pt == nil {
				return errorf(CodeNotInteractable, "element has no box to click")
			}
		}
		a.res.Point = pt
		guard := rep.guard
		if err := a.p.mouseClick(ctx, *pt); err != nil {
			if guard != 0 {
				_ = a.p.call(context.WithoutCancel(ctx), nil, "actGuardDone", guard)
			}
			return err
		}
		if guard == 0 {
			return nil
		}
		var g struct {
			Seen    bool       `json:"seen"`
			OK      bool       `json:"ok"`
			Blocked bool       `json:"blocked"`
			Hit     *Candidate `json:"hit"`
		}
		// The settle turn and the guard's verdict come back together. An
		// error means the document went away: the click landed and
		// navigated.
		err = a.p.call(ctx, &g, "actGuardSettle", guard)
		a.settled = err == nil
		if err != nil || !g.Blocked {
			if err == nil && !g.Seen {
				a.res.note("the click events were not seen in the element's document")
			}
			return nil
		}
		a.res.Hit = g.Hit
		if time.Now().Before(deadline) && ctx.Err() == nil {
			a.res.note("the click landed on %s, not the element: blocked it and retrying", describeCand(g.Hit))
			continue
		}
		e := errorf(CodeOccluded, "at click time the element was covered by %s (that click was blocked)", describeCand(g.Hit))
		if r := a.res.Actionability; r != nil {
			// The report reflects the failure: what took the click.
			r.OK, r.Code, r.Reason, r.ReceivesPointer, r.Hit = false, CodeOccluded, e.Msg, false, g.Hit
		}
		return e
	}
}

func (p *Page) mouseMove(ctx context.Context, pt Point) error {
	err := proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: pt.X, Y: pt.Y}.Call(p.rod.Context(ctx))
	if err != nil {
		p.setPointer(nil)
	} else {
		p.setPointer(&pt)
	}
	return cdpErr(ctx, "mouse move", err)
}

// mouseClick sends a trusted left click (move, press, release) at pt. The
// move is skipped when the pointer already rests there, as a person
// clicking twice would not move: a move is frame-aligned and costs a frame.
func (p *Page) mouseClick(ctx context.Context, pt Point) error {
	rp := p.rod.Context(ctx)
	one, zero := 1, 0
	evs := []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: pt.X, Y: pt.Y},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, Buttons: &one, ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, Buttons: &zero, ClickCount: 1},
	}
	if p.pointerAt(pt) {
		evs = evs[1:]
	}
	for _, ev := range evs {
		if err := ev.Call(rp); err != nil {
			p.setPointer(nil)
			return cdpErr(ctx, "mouse "+string(ev.Type), err)
		}
	}
	p.setPointer(&pt)
	return nil
}

// pointerAt reports whether the last trusted pointer input went to pt.
func (p *Page) pointerAt(pt Point) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pointer != nil && math.Abs(p.pointer.X-pt.X) < 0.5 && math.Abs(p.pointer.Y-pt.Y) < 0.5
}

func (p *Page) setPointer(pt *Point) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pointer = pt
}

// readValue reads the field's value, waiting up to actVerifyWait for it to
// equal want. When the node was replaced (a framework re-render), the field
// is re-found by its fingerprint and read there.
func (a *actor) readValue(ctx context.Context, el *Element, want string) (string, bool, error) {
	var rv struct {
		Attached bool   `json:"attached"`
		Value    string `json:"value"`
	}
	if err := a.p.call(ctx, &rv, "actReadValue", el.Ref, want, waitMs(ctx, actVerifyWait)); err != nil {
		return "", false, err
	}
	if rv.Attached {
		return rv.Value, false, nil
	}
	nel, err := a.p.refindElement(ctx, el)
	if err != nil {
		return "", true, &Error{Code: CodeValueNotApplied, Msg: "the field was replaced and could not be re-found to verify its value", Err: err}
	}
	if err := a.p.call(ctx, &rv, "actReadValue", nel.Ref, want, waitMs(ctx, actVerifyWait)); err != nil {
		return "", true, err
	}
	return rv.Value, true, nil
}

// ---- select ----

type actCombo struct {
	OK             bool   `json:"ok"`
	Kind           string `json:"kind"`
	Expanded       bool   `json:"expanded"`
	Listbox        int    `json:"listbox"`
	ListboxVisible bool   `json:"listboxVisible"`
	Multiple       bool   `json:"multiple"`
	Editable       bool   `json:"editable"`
	Value          string `json:"value"`
	// VisibleListboxes are the listboxes visible before the combobox opens.
	VisibleListboxes []int `json:"visibleListboxes"`
}

func (a *actor) selectNative(ctx context.Context, el *Element, options []string) error {
	a.res.Channel = ChannelDOM
	if _, err := a.ready(ctx, el.Ref, actReq{visible: true, noStable: true}); err != nil {
		return err
	}
	var out struct {
		OK       bool     `json:"ok"`
		Reason   string   `json:"reason"`
		Before   []string `json:"before"`
		After    []string `json:"after"`
		Missing  []string `json:"missing"`
		Disabled []string `json:"disabled"`
		Options  []string `json:"options"`
	}
	if err := a.p.call(ctx, &out, "actSelectNative", el.Ref, options); err != nil {
		return err
	}
	a.res.SelectedBefore, a.res.SelectedAfter = out.Before, out.After
	switch {
	case out.Reason == "detached":
		return errorf(CodeNotFound, "element is detached")
	case len(out.Missing) > 0:
		e := errorf(CodeNotFound, "no option %q in the select", out.Missing)
		e.Candidates = optionCandidates(out.Options)
		return e
	case len(out.Disabled) > 0:
		return errorf(CodeNotInteractable, "option %q is disabled", out.Disabled)
	case !out.OK:
		return errorf(CodeInvalid, "%s", out.Reason)
	}
	if len(out.After) != len(options) {
		return errorf(CodeValueNotApplied, "selected %q, want %q", out.After, options)
	}
	return nil
}

func optionCandidates(names []string) []Candidate {
	out := make([]Candidate, 0, len(names))
	for _, n := range names {
		out = append(out, Candidate{Role: "option", Name: n, Tag: "option"})
	}
	return out
}

type actOption struct {
	Ref      int      `json:"ref"`
	Name     string   `json:"name"`
	Selected bool     `json:"selected"`
	Visible  bool     `json:"visible"`
	Disabled bool     `json:"disabled"`
	Multiple bool     `json:"multiple"`
	Names    []string `json:"names"`
	Reason   string   `json:"reason"`
}

type actListState struct {
	OK       bool     `json:"ok"`
	Selected []string `json:"selected"`
	Options  []string `json:"options"`
	Value    string   `json:"value"`
	Expanded bool     `json:"expanded"`
}

// openListbox makes sure the combobox's listbox is shown and returns its
// ref: click the combobox; if no listbox shows, type typeText into an
// editable combobox (autocomplete widgets list options only once typed
// into), else press ArrowDown on it (the ARIA keyboard pattern).
func (a *actor) openListbox(ctx context.Context, ref int, combo actCombo, typeText string) (int, error) {
	if combo.Kind == "listbox" {
		return ref, nil
	}
	if combo.Listbox != 0 && combo.ListboxVisible {
		return combo.Listbox, nil
	}
	if err := a.clickRef(ctx, ref, a.opt.Channel, false); err != nil {
		return 0, err
	}
	wait := actVerifyWait
	if combo.Editable {
		wait = actVerifyWait / 5
	}
	var lb int
	if err := a.p.call(ctx, &lb, "actWaitListbox", ref, waitMs(ctx, wait), combo.VisibleListboxes); err != nil {
		return 0, err
	}
	if lb != 0 {
		return lb, nil
	}
	if combo.Editable && typeText != "" {
		a.res.note("clicking the combobox showed no listbox: typing %q into it", typeText)
		if err := a.typeInto(ctx, ref, typeText); err != nil {
			return 0, err
		}
	} else {
		a.res.note("clicking the combobox showed no listbox: pressing ArrowDown")
		if err := a.p.pressKeys(ctx, "ArrowDown"); err != nil {
			return 0, err
		}
	}
	if err := a.p.call(ctx, &lb, "actWaitListbox", ref, waitMs(ctx, actVerifyWait), combo.VisibleListboxes); err != nil {
		return 0, err
	}
	if lb == 0 {
		return 0, errorf(CodeNotFound, "the combobox opened no listbox (no aria-controls/aria-owns target and no listbox appeared)")
	}
	return lb, nil
}

// typeInto replaces an editable combobox's text with text, as typed.
func (a *actor) typeInto(ctx context.Context, ref int, text string) error {
	var prep struct {
		OK      bool `json:"ok"`
		Focused bool `json:"focused"`
	}
	if err := a.p.call(ctx, &prep, "actFillPrep", ref); err != nil {
		return err
	}
	if !prep.OK || !prep.Focused {
		return errorf(CodeNotInteractable, "the combobox did not take focus")
	}
	return cdpErr(ctx, "insert text", proto.InputInsertText{Text: text}.Call(a.p.rod.Context(ctx)))
}

func (a *actor) selectARIA(ctx context.Context, el *Element, combo actCombo, options []string) error {
	if _, err := a.ready(ctx, el.Ref, actReq{visible: true, noStable: true}); err != nil {
		return err
	}
	a.res.Channel = a.channel(a.opt.Channel, ChannelCDP)
	var before actListState
	if combo.Listbox != 0 {
		if err := a.p.call(ctx, &before, "actListboxState", el.Ref, combo.Listbox); err != nil {
			return err
		}
		a.res.SelectedBefore = before.Selected
	}
	if len(a.res.SelectedBefore) == 0 && combo.Value != "" && combo.Kind == "combobox" {
		a.res.SelectedBefore = []string{combo.Value}
	}
	if len(options) > 1 && combo.Listbox != 0 && !combo.Multiple {
		return errorf(CodeInvalid, "several options for a single-select listbox")
	}
	lb := 0
	multiple := combo.Multiple
	a.before = combo.VisibleListboxes
	for i, name := range options {
		var err error
		if lb, err = a.ensureOpen(ctx, el.Ref, name); err != nil {
			return err
		}
		opt, err := a.findOption(ctx, el.Ref, lb, name, combo.Editable)
		if err != nil {
			return err
		}
		if i == 0 {
			// The listbox actually opened says whether it is multiselectable.
			multiple = opt.Multiple
			if len(options) > 1 && !multiple {
				return errorf(CodeInvalid, "several options for a single-select listbox")
			}
		}
		if opt.Disabled {
			return errorf(CodeNotInteractable, "option %q is disabled", opt.Name)
		}
		if multiple && opt.Selected {
			continue
		}
		if err := a.clickRef(ctx, opt.Ref, a.opt.Channel, false); err != nil {
			return prefixErr(err, fmt.Sprintf("option %q: ", name))
		}
	}
	if multiple {
		// Toggle off selected options that were not asked for.
		var st actListState
		if lbNow, err := a.ensureOpen(ctx, el.Ref, ""); err == nil {
			lb = lbNow
			if err := a.p.call(ctx, &st, "actListboxState", el.Ref, lb); err != nil {
				return err
			}
		}
		for _, s := range st.Selected {
			if containsNorm(options, s) {
				continue
			}
			var err error
			if lb, err = a.ensureOpen(ctx, el.Ref, ""); err != nil {
				return err
			}
			opt, err := a.findOption(ctx, el.Ref, lb, s, false)
			if err != nil {
				return err
			}
			if opt.Selected {
				if err := a.clickRef(ctx, opt.Ref, a.opt.Channel, false); err != nil {
					return prefixErr(err, fmt.Sprintf("deselect option %q: ", s))
				}
			}
		}
	}
	var st actListState
	if err := a.p.call(ctx, &st, "actWaitSelection", el.Ref, lb, options, waitMs(ctx, actVerifyWait)); err != nil {
		return err
	}
	a.res.SelectedAfter = st.Selected
	if len(st.Selected) == 0 && st.Value != "" {
		a.res.SelectedAfter = []string{st.Value}
	}
	if !st.OK {
		return errorf(CodeValueNotApplied, "options %q not selected: listbox selection %q, combobox value %q", options, st.Selected, st.Value)
	}
	if multiple && st.Selected != nil && len(st.Selected) != len(options) {
		return errorf(CodeValueNotApplied, "listbox selection %q, want exactly %q", st.Selected, options)
	}
	return nil
}

// ensureOpen returns the visible listbox of the select target, opening the
// combobox (again, when picking an option closed it). typeText is what an
// editable combobox is typed with when clicking it lists nothing.
func (a *actor) ensureOpen(ctx context.Context, ref int, typeText string) (int, error) {
	var c actCombo
	if err := a.p.call(ctx, &c, "actCombo", ref); err != nil {
		return 0, err
	}
	if !c.OK {
		return 0, errorf(CodeNotFound, "element is detached")
	}
	if a.before != nil {
		c.VisibleListboxes = a.before
	}
	return a.openListbox(ctx, ref, c, typeText)
}

// findOption looks the option up in the listbox, waiting for options that
// render late; an editable combobox that does not list it is typed into to
// filter the list.
func (a *actor) findOption(ctx context.Context, comboRef, lb int, name string, editable bool) (*actOption, error) {
	var opt actOption
	if err := a.p.call(ctx, &opt, "actFindOption", lb, name, waitMs(ctx, actVerifyWait)); err != nil {
		return nil, err
	}
	if opt.Ref == 0 && editable {
		a.res.note("option %q not listed: typing it into the combobox to filter", name)
		if err := a.typeInto(ctx, comboRef, name); err == nil {
			var nlb int
			if err := a.p.call(ctx, &nlb, "actWaitListbox", comboRef, waitMs(ctx, actVerifyWait), a.before); err != nil {
				return nil, err
			}
			if nlb != 0 {
				lb = nlb
				if err := a.p.call(ctx, &opt, "actFindOption", lb, name, waitMs(ctx, actVerifyWait)); err != nil {
					return nil, err
				}
			}
		}
	}
	if opt.Ref == 0 {
		e := errorf(CodeNotFound, "no option named %q in the listbox", name)
		e.Candidates = optionCandidates(opt.Names)
		return nil, e
	}
	return &opt, nil
}

func containsNorm(list []string, s string) bool {
	n := strings.Join(strings.Fields(s), " ")
	for _, x := range list {
		if strings.Join(strings.Fields(x), " ") == n {
			return true
		}
	}
	return false
}

// ---- check ----

type actCheckState struct {
	OK      bool   `json:"ok"`
	Reason  string `json:"reason"`
	Kind    string `json:"kind"`
	Type    string `json:"type"`
	Checked any    `json:"checked"`
	Control int    `json:"control"`
}

func (s actCheckState) state() string { return fmt.Sprint(s.Checked) }

func (p *Page) setChecked(ctx context.Context, action Action, el *Element, want bool, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, action, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	w := a.watch(ctx)
	defer w.stop()
	var st actCheckState
	if err := p.call(ctx, &st, "actChecked", el.Ref); err != nil {
		return a.end(err)
	}
	if !st.OK {
		if st.Reason == "detached" {
			return a.end(errorf(CodeNotFound, "element is detached"))
		}
		return a.end(errorf(CodeNotInteractable, "%s", st.Reason))
	}
	a.res.CheckedBefore = st.state()
	if st.Checked == want {
		a.res.NoOp = true
		a.res.CheckedAfter = st.state()
		a.res.note("already %s: nothing sent", map[bool]string{true: "checked", false: "unchecked"}[want])
		return a.end(nil)
	}
	if !want && (st.Type == "radio" || st.Type == "menuitemradio") {
		return a.end(errorf(CodeInvalid, "a radio button cannot be unchecked; check another option of its group"))
	}
	if err := a.clickRef(ctx, el.Ref, opt.Channel, true); err != nil {
		return a.end(err)
	}
	var after actCheckState
	if err := p.call(ctx, &after, "actWaitChecked", st.Control, want, waitMs(ctx, actVerifyWait)); err != nil {
		return a.end(err)
	}
	a.res.CheckedAfter = after.state()
	if !after.OK {
		return a.end(errorf(CodeNoEffect, "the control disappeared after the click"))
	}
	if after.Checked != want {
		return a.end(errorf(CodeNoEffect, "clicked, but the state is still %s", after.state()))
	}
	return a.end(w.settle(ctx, a.res, true, opt.NoWaitAfter))
}

// ---- upload through the file chooser ----

func (a *actor) uploadViaChooser(ctx context.Context, el *Element, abs, names []string, w *actWatch) error {
	p := a.p
	rp := p.rod.Context(ctx)
	if err := (proto.PageSetInterceptFileChooserDialog{Enabled: true}).Call(rp); err != nil {
		return cdpErr(ctx, "intercept file chooser", err)
	}
	defer func() {
		_ = proto.PageSetInterceptFileChooserDialog{Enabled: false}.Call(p.rod.Context(context.WithoutCancel(ctx)))
	}()
	a.res.note("no file input tied to the element: clicking it and intercepting the file chooser")
	if err := a.clickRef(ctx, el.Ref, ChannelCDP, false); err != nil {
		return err
	}
	a.res.Channel = ChannelCDP
	var ok bool
	_ = p.call(ctx, &ok, "actSettle")
	chooser := w.fileChooser()
	if chooser == nil {
		return errorf(CodeNotInteractable, "no file input is tied to the element and clicking it opened no file chooser")
	}
	if len(abs) > 1 && chooser.Mode != proto.PageFileChooserOpenedModeSelectMultiple {
		return errorf(CodeInvalid, "%d files for a file chooser that takes one", len(abs))
	}
	a.res.FileVia = "file chooser"
	if err := (proto.DOMSetFileInputFiles{Files: abs, BackendNodeID: chooser.BackendNodeID}).Call(rp); err != nil {
		return cdpErr(ctx, "set files", err)
	}
	node, err := proto.DOMResolveNode{BackendNodeID: chooser.BackendNodeID}.Call(rp)
	if err != nil {
		return cdpErr(ctx, "resolve file input", err)
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID:            node.Object.ObjectID,
		FunctionDeclaration: `function() { return {names: Array.from(this.files || []).map(f => f.name), input: window.__mk ? __mk.describe(this) : null} }`,
		ReturnByValue:       true,
	}.Call(rp)
	if err != nil {
		return cdpErr(ctx, "read files", err)
	}
	var got struct {
		Names []string   `json:"names"`
		Input *Candidate `json:"input"`
	}
	if err := res.Result.Value.Unmarshal(&got); err != nil {
		return &Error{Code: CodeBrowser, Msg: "decode files", Err: err}
	}
	a.res.Files, a.res.FileInput = got.Names, got.Input
	if !slices.Equal(got.Names, names) {
		return errorf(CodeValueNotApplied, "file input holds %q, want %q", got.Names, names)
	}
	return nil
}

// ---- navigation and popups started by an action ----

// actWatch records, from just before an action's input, the page events that
// tell whether the action started a navigation or opened a popup.
//
// The rule (settle): after the input, the page is given one animation frame
// and one task turn (mk.actSettle) to run what the input queued — click
// handlers, a link's or submit button's default action, a scheduled form
// submission, window.open. The Page and Target events seen by then decide:
//
//   - a main-frame Page.frameRequestedNavigation (to a non-javascript: URL,
//     in the current tab), Page.frameStartedLoading or Page.frameNavigated
//     means a navigation is under way: wait (bounded by ctx) for
//     Page.frameNavigated then Page.loadEventFired — or for
//     Page.navigatedWithinDocument (same-document), or for
//     Page.frameStoppedLoading without a commit (the navigation was
//     cancelled, became a download or got a 204). A request that never
//     started loading within actPopupWait is given up on with a note; a
//     committed document whose load event has not fired actLoadWait after
//     the commit is accepted at DOMContentLoaded, with a note.
//   - a Page.windowOpen, a frameRequestedNavigation into a new tab/window, or
//     a Target.targetCreated whose opener is this page means a popup: wait
//     (bounded by actPopupWait and ctx) for the engine to attach it
//     (Page.WaitPopup), then for its first real document to load.
//   - nothing seen: return at once. Navigations a page starts later (after a
//     fetch, a timer) are not waited for; the step's post-conditions wait
//     for their effects.
//
// Actions whose input cannot plausibly navigate (fill, upload) skip the
// settle round trip and only act on signals already seen.
type actWatch struct {
	p      *Page
	cancel context.CancelFunc
	main   proto.PageFrameID
	pop0   int
	mark   int64

	mu          sync.Mutex
	changed     chan struct{}
	requested   bool // navigation requested or loading started
	started     bool
	committed   bool
	loaded      bool
	dcl         bool // DOMContentLoaded of the committed document
	stopped     bool
	sameDoc     bool
	url         string
	popup       bool
	popupURL    string
	popupTarget proto.TargetTargetID
	chooser     *proto.PageFileChooserOpened
}

func (a *actor) watch(ctx context.Context) *actWatch {
	p := a.p
	evCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &actWatch{p: p, cancel: cancel, main: proto.PageFrameID(p.rod.TargetID), pop0: len(p.Popups()), mark: p.RequestMark(), changed: make(chan struct{})}
	_ = proto.PageEnable{}.Call(p.rod.Context(ctx))
	isMain := func(id proto.PageFrameID) bool { return id == w.main }
	pageWait := p.rod.Context(evCtx).EachEvent(
		func(e *proto.PageFrameRequestedNavigation) {
			if !isMain(e.FrameID) || strings.HasPrefix(strings.ToLower(e.URL), "javascript:") {
				return
			}
			w.update(func() {
				switch e.Disposition {
				case proto.PageClientNavigationDispositionNewTab, proto.PageClientNavigationDispositionNewWindow:
					w.popup = true
					w.popupURL = e.URL
				case proto.PageClientNavigationDispositionDownload:
				default:
					w.requested = true
					w.url = e.URL
				}
			})
		},
		func(e *proto.PageFrameStartedLoading) {
			if isMain(e.FrameID) {
				w.update(func() { w.requested, w.started = true, true })
			}
		},
		func(e *proto.PageFrameNavigated) {
			if e.Frame != nil && e.Frame.ParentID == "" {
				w.update(func() {
					w.requested, w.started, w.committed, w.loaded, w.dcl, w.stopped, w.url = true, true, true, false, false, false, e.Frame.URL
				})
			}
		},
		func(e *proto.PageNavigatedWithinDocument) {
			if isMain(e.FrameID) {
				w.update(func() { w.sameDoc, w.url = true, e.URL })
			}
		},
		func(e *proto.PageDomContentEventFired) {
			w.update(func() {
				if w.committed {
					w.dcl = true
				}
			})
		},
		func(e *proto.PageLoadEventFired) {
			w.update(func() {
				if w.committed {
					w.loaded = true
				}
			})
		},
		func(e *proto.PageFrameStoppedLoading) {
			if isMain(e.FrameID) {
				w.update(func() {
					if w.started {
						w.stopped = true
					}
				})
			}
		},
		func(e *proto.PageWindowOpen) {
			w.update(func() {
				w.popup = true
				if w.popupURL == "" {
					w.popupURL = e.URL
				}
			})
		},
		func(e *proto.PageFileChooserOpened) {
			w.update(func() { ev := *e; w.chooser = &ev })
		},
	)
	browserWait := p.ctx.rod.Context(evCtx).EachEvent(func(e *proto.TargetTargetCreated) {
		if e.TargetInfo.OpenerID == p.rod.TargetID && e.TargetInfo.Type == proto.TargetTargetInfoTypePage {
			w.update(func() {
				w.popup = true
				w.popupTarget = e.TargetInfo.TargetID
				if w.popupURL == "" {
					w.popupURL = e.TargetInfo.URL
				}
			})
		}
	})
	go pageWait()
	go browserWait()
	return w
}

func (w *actWatch) update(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *actWatch) stop() { w.cancel() }

func (w *actWatch) fileChooser() *proto.PageFileChooserOpened {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.chooser
}

// waitFor blocks until cond (evaluated under the lock) holds, ctx ends or
// limit (when > 0) passes. It reports whether cond held.
func (w *actWatch) waitFor(ctx context.Context, limit time.Duration, cond func() bool) bool {
	var timeout <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		timeout = t.C
	}
	for {
		w.mu.Lock()
		ok, ch := cond(), w.changed
		w.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-timeout:
			return false
		}
	}
}

// settle applies the rule documented on actWatch. roundTrip asks the page
// for its settle round trip first.
func (w *actWatch) settle(ctx context.Context, res *ActResult, roundTrip, skip bool) error {
	if skip {
		return nil
	}
	start := time.Now()
	defer func() { res.SettleTime += time.Since(start) }()
	if roundTrip {
		var ok bool
		// An error here usually means the document went away: the events
		// below decide.
		_ = w.p.call(ctx, &ok, "actSettle")
	}
	w.mu.Lock()
	nav, popup := w.requested || w.committed, w.popup
	w.mu.Unlock()
	if nav {
		if err := w.waitNavigation(ctx, res); err != nil {
			return err
		}
	}
	w.mu.Lock()
	popup = popup || w.popup
	if !nav && w.sameDoc {
		res.Navigated, res.SameDocument, res.URL = true, true, w.url
	}
	w.mu.Unlock()
	if popup {
		return w.waitPopup(ctx, res)
	}
	return nil
}

func (w *actWatch) waitNavigation(ctx context.Context, res *ActResult) error {
	// First: the navigation commits, stays in the document, or is dropped.
	// A request that never starts loading (handled in-page, blocked by a
	// dismissed beforeunload) is given up on after actPopupWait.
	if !w.waitFor(ctx, actPopupWait, func() bool { return w.started || w.committed || w.sameDoc }) {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the navigation the action started", Err: ctx.Err()}
		}
		res.note("a navigation was requested but did not start within %s", actPopupWait)
		return nil
	}
	if !w.waitFor(ctx, 0, func() bool { return w.committed || w.sameDoc || w.stopped }) {
		return &Error{Code: CodeTimeout, Msg: "waiting for the navigation the action started", Err: ctx.Err()}
	}
	w.mu.Lock()
	committed, sameDoc, url := w.committed, w.sameDoc, w.url
	w.mu.Unlock()
	if !committed {
		if sameDoc {
			res.Navigated, res.SameDocument, res.URL = true, true, url
		} else {
			res.note("a navigation was requested but did not commit (cancelled, download or no content)")
		}
		return nil
	}
	// Then the new document's load event. A subresource that never finishes
	// (a hanging image or iframe) must not eat the step's whole budget:
	// after actLoadWait, DOMContentLoaded is enough.
	evidence := func() {
		w.mu.Lock()
		url := w.url
		w.mu.Unlock()
		res.Navigated, res.URL = true, url
		for _, r := range w.p.Requests(w.mark) {
			if r.Type == string(proto.NetworkResourceTypeDocument) && r.URL == url {
				res.Status = r.Status
			}
		}
	}
	if !w.waitFor(ctx, actLoadWait, func() bool { return w.loaded || w.stopped }) {
		if ctx.Err() == nil && w.waitFor(ctx, 0, func() bool { return w.loaded || w.stopped || w.dcl }) {
			res.note("the new document's load event did not fire within %s of its commit (a subresource is still loading): returned after DOMContentLoaded", actLoadWait)
		} else {
			evidence()
			return &Error{Code: CodeTimeout, Msg: "waiting for the new document to load", Err: ctx.Err()}
		}
	}
	evidence()
	return nil
}

func (w *actWatch) waitPopup(ctx context.Context, res *ActResult) error {
	pctx, cancel := context.WithTimeout(ctx, actPopupWait)
	defer cancel()
	np, err := w.p.WaitPopup(pctx, w.pop0)
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the popup the action opened", Err: ctx.Err()}
		}
		res.note("the page announced a popup but none was attached within %s (blocked?)", actPopupWait)
		return nil
	}
	res.Popup = np
	w.mu.Lock()
	want := w.popupURL
	w.mu.Unlock()
	// Bounded like a navigation: a popup whose load never fires is still
	// returned, with a note.
	lctx, lcancel := context.WithTimeout(ctx, actPopupWait+actLoadWait)
	defer lcancel()
	url, err := waitPageLoaded(lctx, np, want != "" && want != "about:blank")
	if url == "" {
		url, _ = np.URL(ctx)
	}
	res.PopupURL = url
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the popup to load", Err: ctx.Err()}
		}
		res.note("popup not confirmed loaded: %v", err)
	}
	return nil
}

// waitPageLoaded waits until the page shows a document other than the
// initial about:blank (when realURL) whose load event has fired, and returns
// its URL. It is driven by the page's load event and Target info changes.
func waitPageLoaded(ctx context.Context, np *Page, realURL bool) (string, error) {
	rp := np.rod.Context(ctx)
	for attempt := 0; attempt < 20; attempt++ {
		res, err := rp.Evaluate(rod.Eval(`() => new Promise((resolve) => {
			const done = () => resolve({url: location.href, ready: true});
			if (document.readyState === 'complete') done();
			else addEventListener('load', done, {once: true});
		})`).ByPromise())
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			// The initial document was replaced while waiting: try again in
			// the new one.
			continue
		}
		var out struct {
			URL string `json:"url"`
		}
		_ = res.Value.Unmarshal(&out)
		if !realURL || (out.URL != "about:blank" && out.URL != "") {
			return out.URL, nil
		}
		// Still the initial about:blank: wait for the target to navigate.
		if err := waitTargetURLChange(ctx, np); err != nil {
			return out.URL, err
		}
	}
	info, err := rp.Info()
	if err != nil {
		return "", err
	}
	return info.URL, errors.New("page did not settle")
}

// waitTargetURLChange waits for the page's target to report a URL other
// than about:blank.
func waitTargetURLChange(ctx context.Context, np *Page) error {
	evCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	wait := np.ctx.rod.Context(evCtx).EachEvent(func(e *proto.TargetTargetInfoChanged) bool {
		return e.TargetInfo.TargetID == np.rod.TargetID && e.TargetInfo.URL != "about:blank" && e.TargetInfo.URL != ""
	})
	go func() { wait(); close(done) }()
	if info, err := np.rod.Context(ctx).Info(); err == nil && info.URL != "about:blank" && info.URL != "" {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---- keys ----

type keyDef struct {
	key      string
	code     string
	keyCode  int
	text     string
	location int
}

const (
	modAlt     = 1
	modControl = 2
	modMeta    = 4
	modShift   = 8
)

var namedKeys = map[string]keyDef{
	"Enter":      {"Enter", "Enter", 13, "\r", 0},
	"Tab":        {"Tab", "Tab", 9, "", 0},
	"Escape":     {"Escape", "Escape", 27, "", 0},
	"Backspace":  {"Backspace", "Backspace", 8, "", 0},
	"Delete":     {"Delete", "Delete", 46, "", 0},
	"Space":      {" ", "Space", 32, " ", 0},
	"ArrowUp":    {"ArrowUp", "ArrowUp", 38, "", 0},
	"ArrowDown":  {"ArrowDown", "ArrowDown", 40, "", 0},
	"ArrowLeft":  {"ArrowLeft", "ArrowLeft", 37, "", 0},
	"ArrowRight": {"ArrowRight", "ArrowRight", 39, "", 0},
	"Home":       {"Home", "Home", 36, "", 0},
	"End":        {"End", "End", 35, "", 0},
	"PageUp":     {"PageUp", "PageUp", 33, "", 0},
	"PageDown":   {"PageDown", "PageDown", 34, "", 0},
	"Insert":     {"Insert", "Insert", 45, "", 0},
	"Shift":      {"Shift", "ShiftLeft", 16, "", 1},
	"Control":    {"Control", "ControlLeft", 17, "", 1},
	"Alt":        {"Alt", "AltLeft", 18, "", 1},
	"Meta":       {"Meta", "MetaLeft", 91, "", 1},
}

var keyAliases = map[string]string{
	"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta", "super": "Meta",
	"alt": "Alt", "option": "Alt", "shift": "Shift", "esc": "Escape", "escape": "Escape", "return": "Enter",
	"enter": "Enter", "tab": "Tab", "backspace": "Backspace", "delete": "Delete", "del": "Delete",
	"space": "Space", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight",
	"home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown", "insert": "Insert",
}

// US-layout punctuation: unshifted char, shifted char, code, key code.
var punctKeys = []struct {
	base, shifted string
	code          string
	keyCode       int
}{
	{"-", "_", "Minus", 189}, {"=", "+", "Equal", 187}, {"[", "{", "BracketLeft", 219}, {"]", "}", "BracketRight", 221},
	{"\\", "|", "Backslash", 220}, {";", ":", "Semicolon", 186}, {"'", "\"", "Quote", 222}, {",", "<", "Comma", 188},
	{".", ">", "Period", 190}, {"/", "?", "Slash", 191}, {"`", "~", "Backquote", 192},
	{"1", "!", "Digit1", 49}, {"2", "@", "Digit2", 50}, {"3", "#", "Digit3", 51}, {"4", "$", "Digit4", 52},
	{"5", "%", "Digit5", 53}, {"6", "^", "Digit6", 54}, {"7", "&", "Digit7", 55}, {"8", "*", "Digit8", 56},
	{"9", "(", "Digit9", 57}, {"0", ")", "Digit0", 48},
}

// lookupKey resolves one key name ("Enter", "a", "F5", "ArrowDown") and
// reports whether the character itself implies Shift ("A", "!").
func lookupKey(name string) (keyDef, bool, bool) {
	if d, ok := namedKeys[name]; ok {
		return d, false, true
	}
	if alias, ok := keyAliases[strings.ToLower(name)]; ok {
		return namedKeys[alias], false, true
	}
	if len(name) >= 2 && (name[0] == 'F' || name[0] == 'f') {
		var n int
		if _, err := fmt.Sscanf(name[1:], "%d", &n); err == nil && n >= 1 && n <= 24 && fmt.Sprint(n) == name[1:] {
			return keyDef{key: "F" + name[1:], code: "F" + name[1:], keyCode: 111 + n}, false, true
		}
	}
	r := []rune(name)
	if len(r) != 1 {
		return keyDef{}, false, false
	}
	c := r[0]
	switch {
	case c >= 'a' && c <= 'z':
		u := strings.ToUpper(name)
		return keyDef{key: name, code: "Key" + u, keyCode: int(u[0]), text: name}, false, true
	case c >= 'A' && c <= 'Z':
		return keyDef{key: name, code: "Key" + name, keyCode: int(c), text: name}, true, true
	case c == ' ':
		return namedKeys["Space"], false, true
	}
	for _, pk := range punctKeys {
		if name == pk.base {
			return keyDef{key: name, code: pk.code, keyCode: pk.keyCode, text: name}, false, true
		}
		if name == pk.shifted {
			return keyDef{key: name, code: pk.code, keyCode: pk.keyCode, text: name}, true, true
		}
	}
	// Any other character: typed as text without a key code.
	return keyDef{key: name, text: name}, false, true
}

// chord is a parsed key spec: modifiers held while key is pressed.
type chord struct {
	mods    []keyDef
	modBits int
	key     keyDef
}

// parseChord parses "Control+Shift+A", "Enter", "+", "Control++".
func parseChord(spec string) (*chord, error) {
	if spec == "" {
		return nil, errorf(CodeInvalid, "press needs a key")
	}
	var parts []string
	if strings.HasSuffix(spec, "++") || spec == "+" {
		parts = append(strings.Split(strings.TrimSuffix(spec, "++"), "+"), "+")
		if spec == "+" {
			parts = []string{"+"}
		}
	} else {
		parts = strings.Split(spec, "+")
	}
	c := &chord{}
	for i, part := range parts {
		if part == "" {
			return nil, errorf(CodeInvalid, "bad key spec %q", spec)
		}
		d, shifted, ok := lookupKey(part)
		if !ok {
			return nil, errorf(CodeInvalid, "unknown key %q in %q", part, spec)
		}
		if i < len(parts)-1 {
			var bit int
			switch d.key {
			case "Alt":
				bit = modAlt
			case "Control":
				bit = modControl
			case "Meta":
				bit = modMeta
			case "Shift":
				bit = modShift
			default:
				return nil, errorf(CodeInvalid, "%q is not a modifier in %q", part, spec)
			}
			c.mods = append(c.mods, d)
			c.modBits |= bit
			continue
		}
		if shifted && c.modBits&modShift == 0 && c.modBits&(modControl|modAlt|modMeta) != 0 {
			// Control+A means the A key, not Shift+A.
			d.key = strings.ToLower(d.key)
			d.text = d.key
		}
		c.key = d
	}
	if c.modBits&modShift != 0 && len([]rune(c.key.text)) == 1 {
		r := []rune(c.key.text)[0]
		if r >= 'a' && r <= 'z' {
			c.key.text = strings.ToUpper(c.key.text)
			c.key.key = c.key.text
		} else {
			for _, pk := range punctKeys {
				if c.key.text == pk.base {
					c.key.text, c.key.key = pk.shifted, pk.shifted
				}
			}
		}
	}
	return c, nil
}

// jsKeys is the chord for the DOM channel (mk.actDomKey).
func (c *chord) jsKeys() map[string]any {
	return map[string]any{
		"key": c.key.key, "code": c.key.code, "keyCode": c.key.keyCode,
		"ctrlKey": c.modBits&modControl != 0, "shiftKey": c.modBits&modShift != 0,
		"altKey": c.modBits&modAlt != 0, "metaKey": c.modBits&modMeta != 0,
	}
}

// pressKeys parses spec and sends it through CDP.
func (p *Page) pressKeys(ctx context.Context, spec string) error {
	c, err := parseChord(spec)
	if err != nil {
		return err
	}
	return p.sendChord(ctx, c)
}

// sendChord sends modifier downs, the key down/up, then modifier ups.
// Keys that produce text (without Control/Alt/Meta) are sent as keyDown
// with text, so they type and fire keypress; others as rawKeyDown.
// Control/Meta+A also carries the selectAll editing command.
func (p *Page) sendChord(ctx context.Context, c *chord) error {
	rp := p.rod.Context(ctx)
	mods := 0
	send := func(ev proto.InputDispatchKeyEvent) error {
		return cdpErr(ctx, "key "+ev.Key, ev.Call(rp))
	}
	loc := func(l int) *int { return &l }
	for _, m := range c.mods {
		switch m.key {
		case "Alt":
			mods |= modAlt
		case "Control":
			mods |= modControl
		case "Meta":
			mods |= modMeta
		case "Shift":
			mods |= modShift
		}
		if err := send(proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeRawKeyDown, Modifiers: mods, Key: m.key, Code: m.code,
			WindowsVirtualKeyCode: m.keyCode, NativeVirtualKeyCode: m.keyCode, Location: loc(m.location)}); err != nil {
			return err
		}
	}
	k := c.key
	text := k.text
	if mods&(modControl|modAlt|modMeta) != 0 {
		text = ""
	}
	down := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeRawKeyDown, Modifiers: mods, Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Location: loc(k.location)}
	if text != "" {
		down.Type, down.Text, down.UnmodifiedText = proto.InputDispatchKeyEventTypeKeyDown, text, text
	}
	if mods&(modControl|modMeta) != 0 && strings.EqualFold(k.key, "a") {
		down.Commands = []string{"selectAll"}
	}
	if err := send(down); err != nil {
		return err
	}
	if err := send(proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyUp, Modifiers: mods, Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Location: loc(k.location)}); err != nil {
		return err
	}
	for i := len(c.mods) - 1; i >= 0; i-- {
		m := c.mods[i]
		switch m.key {
		case "Alt":
			mods &^= modAlt
		case "Control":
			mods &^= modControl
		case "Meta":
			mods &^= modMeta
		case "Shift":
			mods &^= modShift
		}
		if err := send(proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyUp, Modifiers: mods, Key: m.key, Code: m.code,
			WindowsVirtualKeyCode: m.keyCode, NativeVirtualKeyCode: m.keyCode, Location: loc(m.location)}); err != nil {
			return err
		}
	}
	return nil
}

// ---- helpers ----

// waitMs converts a wait to milliseconds for in-page waits, bounded by
// ctx's deadline (leaving a little time to report back).
func waitMs(ctx context.Context, d time.Duration) int {
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - 50*time.Millisecond
		if left < d {
			d = left
		}
	}
	if d < 0 {
		d = 0
	}
	return int(d / time.Millisecond)
}

// prefixErr prefixes an engine error's message, keeping its code.
func prefixErr(err error, prefix string) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Msg = prefix + c.Msg
		return &c
	}
	return err
}

func cdpErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &Error{Code: CodeTimeout, Msg: what, Err: ctx.Err()}
	}
	return &Error{Code: CodeBrowser, Msg: what, Err: err}
}

func describeCand(c *Candidate) string {
	if c == nil {
		return "the document"
	}
	s := "<" + c.Tag + ">"
	if c.Role != "" {
		s = c.Role + " " + s
	}
	if c.Name != "" {
		s += fmt.Sprintf(" %q", c.Name)
	}
	if c.Selector != "" {
		s += " " + c.Selector
	}
	return s
}

// refindElement re-finds an element the page replaced, by its fingerprint.
func (p *Page) refindElement(ctx context.Context, el *Element) (*Element, error) {
	return p.Refind(ctx, el.Fingerprint)
}

// structToMap converts a JSON-tagged struct into JSON-like maps and slices.
func structToMap(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return string(b)
	}
	return out
}
