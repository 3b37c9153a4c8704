package engine

import (
	"context"
	"math"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

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
			if err := a.p.call(ctx, &out, mkActDomClick, target); err != nil {
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
				_ = a.p.call(context.WithoutCancel(ctx), nil, mkActGuardDone, guard)
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
		err = a.p.call(ctx, &g, mkActGuardSettle, guard)
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
