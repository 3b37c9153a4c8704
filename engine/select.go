package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

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
	if err := p.call(ctx, &combo, mkActCombo, el.Ref); err != nil {
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
	if err := a.p.call(ctx, &out, mkActSelectNative, el.Ref, options); err != nil {
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
	if err := a.p.call(ctx, &lb, mkActWaitListbox, ref, waitMs(ctx, wait), combo.VisibleListboxes); err != nil {
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
	if err := a.p.call(ctx, &lb, mkActWaitListbox, ref, waitMs(ctx, actVerifyWait), combo.VisibleListboxes); err != nil {
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
	if err := a.p.call(ctx, &prep, mkActFillPrep, ref); err != nil {
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
		if err := a.p.call(ctx, &before, mkActListboxState, el.Ref, combo.Listbox); err != nil {
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
			if err := a.p.call(ctx, &st, mkActListboxState, el.Ref, lb); err != nil {
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
	if err := a.p.call(ctx, &st, mkActWaitSelection, el.Ref, lb, options, waitMs(ctx, actVerifyWait)); err != nil {
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
	if err := a.p.call(ctx, &c, mkActCombo, ref); err != nil {
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
	if err := a.p.call(ctx, &opt, mkActFindOption, lb, name, waitMs(ctx, actVerifyWait)); err != nil {
		return nil, err
	}
	if opt.Ref == 0 && editable {
		a.res.note("option %q not listed: typing it into the combobox to filter", name)
		if err := a.typeInto(ctx, comboRef, name); err == nil {
			var nlb int
			if err := a.p.call(ctx, &nlb, mkActWaitListbox, comboRef, waitMs(ctx, actVerifyWait), a.before); err != nil {
				return nil, err
			}
			if nlb != 0 {
				lb = nlb
				if err := a.p.call(ctx, &opt, mkActFindOption, lb, name, waitMs(ctx, actVerifyWait)); err != nil {
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
