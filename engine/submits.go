package engine

import (
	"context"
	"encoding/json"
	"strings"
)

// submitsJS decides, for the element this is bound to, whether the action
// submits a form, by the HTML rules: a click on a submit button (a
// <button> without type or type=submit, <input type=submit|image>, or the
// element inside one) that has a form owner and is enabled; Enter on such
// a button, or in a form's text field (implicit submission: the form has
// a submit button, or a single field that blocks it). It returns the
// form's name, id or action and its method, or null.
const submitsJS = `function(enter) {
  const describe = (f, b) => ({form: f.getAttribute('name') || f.id || f.getAttribute('action') || 'a form',
    method: ((b && b.getAttribute('formmethod')) || f.getAttribute('method') || 'get').toUpperCase(),
    search: !!(f.closest('[role=search], search') || f.querySelector('input[type=search]'))});
  const submitter = (el) => {
    const b = el.closest ? el.closest('button, input[type=submit], input[type=image]') : null;
    if (!b || b.disabled) return null;
    if (b.tagName === 'BUTTON' && (b.getAttribute('type') || 'submit').toLowerCase() !== 'submit') return null;
    return b.form || null;
  };
  const f = submitter(this);
  if (f) return describe(f, this.closest('button, input'));
  if (!enter || this.tagName !== 'INPUT' || !this.form || this.disabled || this.readOnly) return null;
  const t = (this.type || 'text').toLowerCase();
  const blocking = ['text','search','url','tel','email','password','date','month','week','time','datetime-local','number'];
  if (!blocking.includes(t)) return null;
  const form = this.form;
  for (const el of form.elements) if (submitter(el) === form) return describe(form, el);
  let n = 0;
  for (const el of form.elements) if (el.tagName === 'INPUT' && blocking.includes((el.type || 'text').toLowerCase())) n++;
  return n === 1 ? describe(form, null) : null;
}`

// FormSubmit is the form an action submits.
type FormSubmit struct {
	Form   string `json:"form"`   // its name, id or action
	Method string `json:"method"` // GET, POST, DIALOG, ... (the submitter's formmethod wins)
	// Search: the form is a search form (a search landmark, or it has a
	// type=search field). A form's method alone says little: script
	// handles many a method-less (GET) form with a POST of its own.
	Search bool `json:"search"`
}

// SubmitsForm returns the form acting on e submits, or nil: a click (key "") on a submit button of a form, or a
// key press of Enter on one or in a form's text field that submits
// implicitly. Explore mode's action gate asks it before a raw click or
// Enter; what a script does on click is not known here.
func (e *Element) SubmitsForm(ctx context.Context, key string) (*FormSubmit, error) {
	enter := strings.EqualFold(strings.TrimSpace(key), "Enter")
	if key != "" && !enter {
		return nil, nil // other keys do not submit (Space on a button is a click the page sees as one)
	}
	h, err := e.Handle(ctx)
	if err != nil {
		return nil, err
	}
	res, err := h.Context(ctx).Eval(submitsJS, enter)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: CodeTimeout, Msg: "in-page submits", Err: ctx.Err()}
		}
		return nil, &Error{Code: CodeBrowser, Msg: "in-page submits", Err: err}
	}
	if res.Value.Nil() {
		return nil, nil
	}
	var fs FormSubmit
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &fs); err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "decode in-page submits result", Err: err}
	}
	return &fs, nil
}
