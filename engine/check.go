package engine

import (
	"context"
	"fmt"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Check makes a checkbox, radio, switch (native or ARIA role=checkbox /
// switch / radio / menuitemcheckbox) checked. The target may also be a
// label or a wrapper holding one such control. Nothing is sent when it is
// already checked (ActResult.NoOp). Otherwise the element is clicked (a
// hidden native input through its visible label, else through the visible
// wrapper standing for it) and the new state verified; a state that did not
// change is CodeNoEffect. The state is what a user sees: a visible native
// input's checked state, else the aria-checked of a visible role=switch or
// checkbox wrapper or of the hidden input itself.
func (p *Page) Check(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	return p.setChecked(ctx, vocab.ActCheck, el, true, opt)
}

// Uncheck is Check towards the unchecked state. Unchecking a radio button is
// CodeInvalid.
func (p *Page) Uncheck(ctx context.Context, el *Element, opt ActOptions) (*ActResult, error) {
	return p.setChecked(ctx, vocab.ActUncheck, el, false, opt)
}

type actCheckState struct {
	OK      bool   `json:"ok"`
	Reason  string `json:"reason"`
	Kind    string `json:"kind"`
	Type    string `json:"type"`
	Checked any    `json:"checked"`
	Control int    `json:"control"`
	Click   int    `json:"click"`
	From    string `json:"from"`
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
	if err := p.call(ctx, &st, mkActChecked, el.Ref); err != nil {
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
	click := el.Ref
	if st.Click != 0 {
		// A hidden control without a visible label: click the visible
		// element that stands for it.
		click = st.Click
		a.res.note("the control is hidden: clicking its visible wrapper")
	}
	if st.From != "" {
		a.res.note("the input is hidden: state read from its %s, what the switch shows", st.From)
	}
	if err := a.clickRef(ctx, click, opt.Channel, true); err != nil {
		return a.end(err)
	}
	var after actCheckState
	if err := p.call(ctx, &after, mkActWaitChecked, st.Control, want, waitMs(ctx, actVerifyWait)); err != nil {
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
