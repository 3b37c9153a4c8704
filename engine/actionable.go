package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

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
	case vocab.ActClick, vocab.ActHover, vocab.ActType:
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
	if err := p.call(ctx, &rep, mkActionable, ref, jsOpt); err != nil {
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
