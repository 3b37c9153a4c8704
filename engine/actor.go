package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

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
		a.res.ValueBefore = redact.String(a.res.ValueBefore, secrets)
		a.res.ValueAfter = redact.String(a.res.ValueAfter, secrets)
		var e *Error
		if errors.As(err, &e) {
			e.Msg = redact.String(e.Msg, secrets)
		}
	}
	if a.opt.Sensitive {
		if a.res.ValueBefore != "" {
			a.res.ValueBefore = redact.Marker
		}
		if a.res.ValueAfter != "" {
			a.res.ValueAfter = redact.Marker
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

// codeOf returns err's engine Code, or "" for other errors.
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

// cdpErr types a failed CDP call: timeout when ctx ended, else browser.
func cdpErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &Error{Code: CodeTimeout, Msg: what, Err: ctx.Err()}
	}
	return &Error{Code: CodeBrowser, Msg: what, Err: err}
}

// describeCand names an element for notes and messages.
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
