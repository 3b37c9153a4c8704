package engine

import (
	"context"
	"time"

	"github.com/macrokit/macrokit-go/engine/keys"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// MaxKeyDelay bounds Type's pause between two keystrokes.
const MaxKeyDelay = time.Second

// Type clicks the element to focus it (or, when it takes no focus itself,
// its first visible editable part, such as a sectioned field's first
// section; never a button inside it), then sends text one character at a
// time as trusted key events (CDP keyDown with the character's text, then
// keyUp; "\n" is Enter and "\t" is Tab), pausing delay between keys. It
// does not clear the field first: that is what Fill is for. Widgets that
// read keystrokes rather than a value — sectioned date fields, masked
// inputs, key-driven editors — take input this way.
//
// The focusing click goes through opt.Channel; the keys always go through
// CDP, since synthetic key events type nothing. When the click does not
// focus the element or something inside it, the element is focused
// directly; when that fails too it is CodeNotInteractable and no key is
// sent.
//
// Read-back: on a plain input or textarea, the value must then contain the
// typed text (compared on letters and digits only, so a mask's spaces and
// dashes do not matter), waiting briefly for a re-render; a mismatch is
// CodeCheckFailed, which is never retried because the keys reached the
// page. Anything else (a sectioned field formats what it receives) is not
// read back: the step's post-conditions decide. ActResult.ValueBefore and
// ValueAfter hold the field's value, or its text, before and after.
func (p *Page) Type(ctx context.Context, el *Element, text string, delay time.Duration, opt ActOptions) (*ActResult, error) {
	if opt.Sensitive {
		p.AddSecret(text)
	}
	a := p.begin(ctx, vocab.ActType, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	if text == "" {
		return a.end(errorf(CodeInvalid, "type needs text to send"))
	}
	if delay < 0 || delay > MaxKeyDelay {
		return a.end(errorf(CodeInvalid, "key delay %s is outside 0..%s", delay, MaxKeyDelay))
	}
	chords, err := typeChords(text)
	if err != nil {
		return a.end(err)
	}
	w := a.watch(ctx)
	defer w.stop()
	var tgt struct {
		OK  bool       `json:"ok"`
		Ref int        `json:"ref"`
		Via *Candidate `json:"via"`
	}
	if err := p.call(ctx, &tgt, mkActTypeTarget, el.Ref); err != nil {
		return a.end(err)
	}
	if !tgt.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	if tgt.Via != nil {
		a.res.note("focused through %s, the first editable part of the element", describeCand(tgt.Via))
	}
	if err := a.clickRef(ctx, tgt.Ref, opt.Channel, false); err != nil {
		return a.end(err)
	}
	var prep struct {
		OK      bool       `json:"ok"`
		Plain   bool       `json:"plain"`
		Before  string     `json:"before"`
		Focused bool       `json:"focused"`
		Active  *Candidate `json:"active"`
	}
	if err := p.call(ctx, &prep, mkActTypePrep, el.Ref, tgt.Ref); err != nil {
		return a.end(err)
	}
	if !prep.OK {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	a.res.ValueBefore, a.res.Focused = prep.Before, prep.Active
	if !prep.Focused {
		return a.end(errorf(CodeNotInteractable, "the element did not take focus (focus is on %s); no key was sent", describeCand(prep.Active)))
	}
	a.res.Channel = ChannelCDP
	for i, c := range chords {
		if i > 0 && delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return a.end(&Error{Code: CodeTimeout, Msg: "type", Err: ctx.Err()})
			case <-t.C:
			}
		}
		if err := p.sendChord(ctx, c); err != nil {
			return a.end(err)
		}
	}
	var rv struct {
		Attached bool   `json:"attached"`
		Value    string `json:"value"`
		Holds    bool   `json:"holds"`
	}
	if err := p.call(ctx, &rv, mkActTypeRead, el.Ref, tgt.Ref, text, waitMs(ctx, actVerifyWait)); err != nil {
		return a.end(err)
	}
	a.res.ValueAfter = rv.Value
	switch {
	case !rv.Attached:
		a.res.note("the element was replaced while typing: not read back; the post-conditions decide")
	case prep.Plain && !rv.Holds:
		return a.end(errorf(CodeCheckFailed, "typed %q but the field holds %q (before %q); not typing again", text, rv.Value, prep.Before))
	case !prep.Plain:
		a.res.note("not a plain text field: not read back; the post-conditions decide")
	}
	return a.end(w.settle(ctx, a.res, true, opt.NoWaitAfter))
}

// typeChords turns text into one key chord per character.
func typeChords(text string) ([]keys.Chord, error) {
	var out []keys.Chord
	for _, r := range text {
		spec := string(r)
		switch r {
		case '\n':
			spec = "Enter"
		case '\r':
			continue
		case '\t':
			spec = "Tab"
		}
		c, err := parseChord(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
