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
// each option is found by its name in the listbox it controls
// (aria-controls/aria-owns, its active descendant's listbox, else the
// nearest visible role=listbox) and clicked. When that listbox is virtual
// (laid out but showing no option, as antd's 0x0 mirror) or no listbox
// appears, the options are looked up by visible text in the popup a user
// sees: the listbox's visible container, else the newest visible popup of
// option-like elements that appeared after opening. An editable combobox
// that does not list the option is typed into to filter it (async options
// are waited for); when no option is named so, an option offering to
// create it (Create "x") is clicked. A labelled control that is hidden
// (Element Plus's select input) is operated through its nearest visible
// wrapper of the same widget. A role=listbox target has its options
// clicked directly; in a multiple select the selection is made exactly
// the given options, never toggling an option that is already selected.
//
// The result is read back from what a user sees: each option must be
// selected in the listbox or popup, displayed by the widget (a value shown
// beside the input, chips), or shown in the combobox's value or text. A
// missing option is CodeNotFound listing the options present as
// candidates; a selection read back wrong is CodeValueNotApplied; when
// nothing can be read at all, ActResult.Unsure says so and no error is
// returned, leaving the verdict to the step's post-conditions.
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
	// Popup says Listbox is the visible popup of a virtual or missing
	// listbox, searched by visible text.
	Popup    bool `json:"popup"`
	Multiple bool `json:"multiple"`
	Editable bool `json:"editable"`
	// Control is the element to click: the combobox, or the visible
	// wrapper of a hidden one (0: none is visible).
	Control int    `json:"control"`
	Value   string `json:"value"`
	// Displayed are the texts the widget shows outside its input (a
	// chosen value, chips).
	Displayed []string `json:"displayed"`
	// VisibleListboxes are the listboxes visible before the combobox opens.
	VisibleListboxes []int `json:"visibleListboxes"`
}

// actListbox is where options are looked up: a listbox, or a popup.
type actListbox struct {
	Ref   int  `json:"ref"`
	Popup bool `json:"popup"`
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
	Ref      int    `json:"ref"`
	Name     string `json:"name"`
	Selected bool   `json:"selected"`
	Visible  bool   `json:"visible"`
	Disabled bool   `json:"disabled"`
	Multiple bool   `json:"multiple"`
	Creates  bool   `json:"creates"`
	// Lb and Popup are where the option was looked up, when the lookup
	// re-resolved it (Popup nil: not re-resolved).
	Lb     int      `json:"lb"`
	Popup  *bool    `json:"popup"`
	Names  []string `json:"names"`
	Reason string   `json:"reason"`
}

type actListState struct {
	OK        bool     `json:"ok"`
	Readable  bool     `json:"readable"`
	Selected  []string `json:"selected"`
	Options   []string `json:"options"`
	Value     string   `json:"value"`
	Displayed []string `json:"displayed"`
	Expanded  bool     `json:"expanded"`
}

// comboRun is one ARIA select in progress: the combobox, the element
// clicked to open it, and what it takes.
type comboRun struct {
	*actor
	ref, ctl           int
	editable, multiple bool
}

// openListbox makes sure the combobox's options are shown and returns
// where to look them up: click the control; if no listbox or popup shows,
// type typeText into an editable combobox (autocomplete widgets list
// options only once typed into), else press ArrowDown on it (the ARIA
// keyboard pattern).
func (r *comboRun) openListbox(ctx context.Context, combo actCombo, typeText string) (actListbox, error) {
	if combo.Kind == "listbox" {
		return actListbox{Ref: r.ref}, nil
	}
	if combo.Listbox != 0 && combo.ListboxVisible {
		return actListbox{Ref: combo.Listbox, Popup: combo.Popup}, nil
	}
	if err := r.clickRef(ctx, r.ctl, r.opt.Channel, false); err != nil {
		return actListbox{}, err
	}
	wait := actVerifyWait
	if r.editable {
		wait = actVerifyWait / 5
	}
	var lb actListbox
	if err := r.p.call(ctx, &lb, mkActWaitListbox, r.ref, waitMs(ctx, wait), r.before); err != nil {
		return lb, err
	}
	if lb.Ref != 0 {
		r.notePopup(lb)
		return lb, nil
	}
	if r.editable && typeText != "" {
		r.res.note("clicking the combobox showed no options: typing %q into it", typeText)
		if err := r.typeInto(ctx, r.ref, typeText); err != nil {
			return lb, err
		}
	} else {
		r.res.note("clicking the combobox showed no options: pressing ArrowDown")
		if err := r.p.pressKeys(ctx, "ArrowDown"); err != nil {
			return lb, err
		}
	}
	if err := r.p.call(ctx, &lb, mkActWaitListbox, r.ref, waitMs(ctx, actVerifyWait), r.before); err != nil {
		return lb, err
	}
	if lb.Ref == 0 {
		return lb, errorf(CodeNotFound, "the combobox opened no listbox and no popup of options (no aria-controls/aria-owns target, no listbox or option-like popup appeared)")
	}
	r.notePopup(lb)
	return lb, nil
}

func (r *comboRun) notePopup(lb actListbox) {
	if lb.Popup {
		r.res.note("its listbox is virtual or missing: looking options up by visible text in the popup")
	}
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
	r := &comboRun{actor: a, ref: el.Ref, ctl: el.Ref, editable: combo.Editable, multiple: combo.Multiple}
	if combo.Kind == "combobox" && combo.Control != 0 && combo.Control != el.Ref {
		r.ctl = combo.Control
		a.res.note("the labelled control is hidden: operating its visible wrapper")
	}
	if _, err := a.ready(ctx, r.ctl, actReq{visible: true, noStable: true}); err != nil {
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
	if len(a.res.SelectedBefore) == 0 && combo.Kind == "combobox" {
		switch {
		case len(combo.Displayed) > 0:
			a.res.SelectedBefore = combo.Displayed
		case combo.Value != "":
			a.res.SelectedBefore = []string{combo.Value}
		}
	}
	if len(options) > 1 && combo.Listbox != 0 && !combo.Multiple {
		return errorf(CodeInvalid, "several options for a single-select listbox")
	}
	var lb actListbox
	a.before = combo.VisibleListboxes
	shown := combo.Displayed
	// Several options mean a multiple select even before its listbox says
	// so (react-select's shows only once open).
	several := len(options) > 1
	for i, name := range options {
		if (r.multiple || several) && containsFold(shown, name) {
			a.res.note("option %q is already selected", name)
			continue
		}
		var err error
		var now actCombo
		if lb, now, err = r.ensureOpen(ctx, name); err != nil {
			return err
		}
		if (r.multiple || several) && containsFold(now.Displayed, name) {
			a.res.note("option %q is already selected", name)
			continue
		}
		opt, err := r.findOption(ctx, &lb, name)
		if IsCode(err, CodeNotFound) && containsFold(now.Displayed, name) {
			// A multiple select may drop chosen options from its list
			// (react-select): the chip says it is chosen.
			a.res.note("option %q is not listed but shown as chosen", name)
			continue
		}
		if err != nil {
			return err
		}
		if i == 0 {
			// The listbox actually opened says whether it is multiselectable.
			r.multiple = r.multiple || opt.Multiple
			if len(options) > 1 && !r.multiple {
				return errorf(CodeInvalid, "several options for a single-select listbox")
			}
		}
		if opt.Disabled {
			return errorf(CodeNotInteractable, "option %q is disabled", opt.Name)
		}
		if r.multiple && opt.Selected {
			continue
		}
		if opt.Creates {
			a.res.note("no option %q: clicking %q, which creates it", name, opt.Name)
		}
		if err := a.clickRef(ctx, opt.Ref, a.opt.Channel, false); err != nil {
			return prefixErr(err, fmt.Sprintf("option %q: ", name))
		}
		shown = nil
	}
	if r.multiple && hasOthers(a.res.SelectedBefore, options) {
		if err := r.deselectOthers(ctx, &lb, options); err != nil {
			return err
		}
	}
	var st actListState
	if err := a.p.call(ctx, &st, mkActWaitSelection, el.Ref, lb.Ref, options, waitMs(ctx, actVerifyWait), r.multiple); err != nil {
		return err
	}
	switch {
	case len(st.Selected) > 0:
		a.res.SelectedAfter = st.Selected
	case len(st.Displayed) > 0:
		a.res.SelectedAfter = st.Displayed
	case st.Value != "":
		a.res.SelectedAfter = []string{st.Value}
	}
	if !st.OK {
		if !st.Readable {
			a.res.Unsure = fmt.Sprintf("options %q were clicked, but the widget shows no selection, value or text the engine can read", options)
			a.res.note("read-back unsure: %s", a.res.Unsure)
			return nil
		}
		return errorf(CodeValueNotApplied, "options %q not selected: selection %q, displayed %q, combobox value %q", options, st.Selected, st.Displayed, st.Value)
	}
	if r.multiple && !lb.Popup && st.Selected != nil && len(st.Selected) != len(options) {
		return errorf(CodeValueNotApplied, "listbox selection %q, want exactly %q", st.Selected, options)
	}
	return nil
}

// deselectOthers toggles off the selected options that were not asked for.
func (r *comboRun) deselectOthers(ctx context.Context, lb *actListbox, options []string) error {
	var st actListState
	if now, _, err := r.ensureOpen(ctx, ""); err == nil {
		*lb = now
		if err := r.p.call(ctx, &st, mkActListboxState, r.ref, lb.Ref); err != nil {
			return err
		}
	}
	for _, s := range st.Selected {
		if containsNorm(options, s) {
			continue
		}
		now, _, err := r.ensureOpen(ctx, "")
		if err != nil {
			return err
		}
		*lb = now
		opt, err := r.findOption(ctx, lb, s)
		if err != nil {
			return err
		}
		if opt.Selected {
			if err := r.clickRef(ctx, opt.Ref, r.opt.Channel, false); err != nil {
				return prefixErr(err, fmt.Sprintf("deselect option %q: ", s))
			}
		}
	}
	return nil
}

// ensureOpen returns where the select target's options are shown, opening
// the combobox (again, when picking an option closed it), and the
// combobox's state. typeText is what an editable combobox is typed with
// when clicking it lists nothing.
func (r *comboRun) ensureOpen(ctx context.Context, typeText string) (actListbox, actCombo, error) {
	var c actCombo
	if err := r.p.call(ctx, &c, mkActCombo, r.ref); err != nil {
		return actListbox{}, c, err
	}
	if !c.OK {
		return actListbox{}, c, errorf(CodeNotFound, "element is detached")
	}
	if r.before != nil {
		c.VisibleListboxes = r.before
	}
	lb, err := r.openListbox(ctx, c, typeText)
	return lb, c, err
}

// optionSweeps bounds an option lookup whose sweep through a long
// (virtual) list is still moving when its wait is over: on a loaded
// machine each page of such a list takes frames to render, and an option
// not reached yet is not a missing option.
const optionSweeps = 4

// findOption looks the option up where the options are shown, waiting
// for options that render late; an editable combobox that does not list
// it is typed into to filter the list (and then an option offering to
// create it counts).
func (r *comboRun) findOption(ctx context.Context, lb *actListbox, name string) (*actOption, error) {
	var opt actOption
	wait := actVerifyWait
	if r.editable {
		wait = actVerifyWait / 5
	}
	// A sweep through a long list may run on to optionSweeps x the wait
	// (41_select.js); both bounds stay inside ctx.
	if err := r.p.call(ctx, &opt, mkActFindOption, lb.Ref, name, waitMs(ctx, wait), false, 0, nil, waitMs(ctx, optionSweeps*wait)); err != nil {
		return nil, err
	}
	if opt.Ref == 0 && r.editable {
		r.res.note("option %q not listed: typing it into the combobox to filter", name)
		if err := r.typeInto(ctx, r.ref, name); err == nil {
			// Filtered (or async) options re-render the popup: the lookup
			// finds where the options show again while it waits.
			if err := r.p.call(ctx, &opt, mkActFindOption, lb.Ref, name, waitMs(ctx, actVerifyWait), true, r.ref, r.before, waitMs(ctx, optionSweeps*actVerifyWait)); err != nil {
				return nil, err
			}
			if opt.Lb != 0 && opt.Popup != nil {
				*lb = actListbox{Ref: opt.Lb, Popup: *opt.Popup}
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

func containsFold(list []string, s string) bool {
	n := strings.Join(strings.Fields(s), " ")
	for _, x := range list {
		if strings.EqualFold(strings.Join(strings.Fields(x), " "), n) {
			return true
		}
	}
	return false
}

// hasOthers says whether selected holds a name not among options.
func hasOthers(selected, options []string) bool {
	for _, s := range selected {
		if !containsNorm(options, s) {
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
