package engine

import (
	"context"
	"strings"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine/keys"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

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
		if err := p.call(ctx, &f, mkActFocus, el.Ref); err != nil {
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
	if err := p.call(ctx, &focused, mkActFocused); err != nil {
		return a.end(err)
	}
	a.res.Focused = focused
	ch := a.channel(opt.Channel, ChannelCDP)
	a.res.Channel = ch
	if ch == ChannelDOM {
		var ok bool
		if err := p.call(ctx, &ok, mkActDomKey, jsKeys(chord)); err != nil {
			return a.end(err)
		}
	} else if err := p.sendChord(ctx, chord); err != nil {
		return a.end(err)
	}
	return a.end(w.settle(ctx, a.res, true, opt.NoWaitAfter))
}

// parseChord parses a key spec, failing with CodeInvalid.
func parseChord(spec string) (keys.Chord, error) {
	c, err := keys.Parse(spec)
	if err != nil {
		return keys.Chord{}, &Error{Code: CodeInvalid, Msg: err.Error()}
	}
	return c, nil
}

// jsKeys is the chord for the DOM channel (mk.actDomKey).
func jsKeys(c keys.Chord) map[string]any {
	return map[string]any{
		"key": c.Key.Key, "code": c.Key.Code, "keyCode": c.Key.KeyCode,
		"ctrlKey": c.Has(keys.Control), "shiftKey": c.Has(keys.Shift),
		"altKey": c.Has(keys.Alt), "metaKey": c.Has(keys.Meta),
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
func (p *Page) sendChord(ctx context.Context, c keys.Chord) error {
	rp := p.rod.Context(ctx)
	var mods keys.Modifier
	send := func(ev proto.InputDispatchKeyEvent) error {
		return cdpErr(ctx, "key "+ev.Key, ev.Call(rp))
	}
	event := func(typ proto.InputDispatchKeyEventType, k keys.Key) proto.InputDispatchKeyEvent {
		loc := k.Location
		return proto.InputDispatchKeyEvent{Type: typ, Modifiers: int(mods), Key: k.Key, Code: k.Code,
			WindowsVirtualKeyCode: k.KeyCode, NativeVirtualKeyCode: k.KeyCode, Location: &loc}
	}
	for _, m := range c.Mods {
		mods |= m.Modifier()
		if err := send(event(proto.InputDispatchKeyEventTypeRawKeyDown, m)); err != nil {
			return err
		}
	}
	k := c.Key
	text := k.Text
	if mods&(keys.Control|keys.Alt|keys.Meta) != 0 {
		text = ""
	}
	down := event(proto.InputDispatchKeyEventTypeRawKeyDown, k)
	if text != "" {
		down.Type, down.Text, down.UnmodifiedText = proto.InputDispatchKeyEventTypeKeyDown, text, text
	}
	if mods&(keys.Control|keys.Meta) != 0 && strings.EqualFold(k.Key, "a") {
		down.Commands = []string{"selectAll"}
	}
	if err := send(down); err != nil {
		return err
	}
	if err := send(event(proto.InputDispatchKeyEventTypeKeyUp, k)); err != nil {
		return err
	}
	for i := len(c.Mods) - 1; i >= 0; i-- {
		m := c.Mods[i]
		mods &^= m.Modifier()
		if err := send(event(proto.InputDispatchKeyEventTypeKeyUp, m)); err != nil {
			return err
		}
	}
	return nil
}
