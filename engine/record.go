package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// The recorder's in-page functions.
const (
	// js/80_record.js
	mkRecordStart agentFn = "recordStart"
	mkRecordState agentFn = "recordState"
	mkRecordFlush agentFn = "recordFlush"
)

// recordBinding is the CDP binding the in-page recorder reports through.
const recordBinding = "__mkRecord"

// recordSettle bounds how long the recorder waits for an action's effects
// (the requests it started, their rendering) before reading the page.
const recordSettle = 3 * time.Second

// RecordState is what the page showed around a recorded action: its text
// lines, data-testid counts (with each id's DOM depth, to tell a row from
// the cells inside it) and open dialogs.
type RecordState struct {
	URL     string         `json:"url"`
	Lines   []string       `json:"lines"`
	Counts  map[string]int `json:"counts"`
	Depths  map[string]int `json:"depths"`
	Dialogs []RecordDialog `json:"dialogs"`
	// Values are the visible text fields' and selects' values, each with
	// its target (password fields are never read).
	Values []RecordValue `json:"values"`
}

// RecordValue is a control's value and the target a user would write for
// the control.
type RecordValue struct {
	Target Target `json:"target"`
	Value  string `json:"value"`
}

// RecordDialog is an open dialog: its role (dialog, alertdialog) and name.
type RecordDialog struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

// Recorded is one action a user did on a recorded page, with the target a
// user would write for it and what it did.
type Recorded struct {
	Seq int `json:"seq"`
	// Kind is click, fill, select, check, uncheck, press, assert (a check
	// on an element the user pointed at), or point: point mode armed
	// (Value "on") or not ("off"), which is no action.
	Kind string `json:"kind"`
	// Target is the target a user would write: role and name, a label, a
	// placeholder or visible text, else a test id or CSS; it grounds to
	// exactly this element (Resolve's "unique"). Nil when nothing does.
	Target *Target `json:"target,omitempty"`
	// How says which locator Target uses: role, label, placeholder, text,
	// testid or css.
	How  string `json:"how,omitempty"`
	Role string `json:"role,omitempty"` // the element's role and name
	Name string `json:"name,omitempty"`
	Tag  string `json:"tag,omitempty"`
	// Type is an input's type (password, email, date, ...), Autocomplete
	// its autocomplete attribute.
	Type         string `json:"type,omitempty"`
	Autocomplete string `json:"autocomplete,omitempty"`
	// Combobox is set for an element that opens a listbox.
	Combobox bool `json:"combobox,omitempty"`
	// Value is the filled text, the chosen option's name, or, for an
	// assert, the pointed field's value (never a password's).
	Value string `json:"value,omitempty"`
	Key   string `json:"key,omitempty"`
	// Text is an asserted element's visible text.
	Text string `json:"text,omitempty"`
	// Options and OptionValues are the options of the select or listbox,
	// by name and by value ("" where an option has none).
	Options      []string `json:"options,omitempty"`
	OptionValues []string `json:"optionValues,omitempty"`
	// OptionsPartial says Options are only some of the options: the list
	// renders those in view (a virtual list) or has more than 100.
	OptionsPartial bool `json:"optionsPartial,omitempty"`
	// Multiple says the select holds several values: an option click is
	// one more pick (or, on a chosen option, takes it back), and Values
	// are the options chosen, in order (a native select reports them all
	// at each change; record's Build gathers a widget's picks into them).
	Multiple bool     `json:"multiple,omitempty"`
	Values   []string `json:"values,omitempty"`
	// Level says a click is on an entry of a menu opened from the last
	// combobox clicked: one level of a cascader's path (Name is the
	// entry's visible name, as select's path finds it). record's Build
	// gathers the levels into Values.
	Level bool `json:"level,omitempty"`
	// URL is the page's URL when the action happened.
	URL string `json:"url"`
	// Before is the page before the action (clicks, presses, selects,
	// checks), After once its effects settled.
	Before *RecordState `json:"before,omitempty"`
	After  *RecordState `json:"-"`
	// Requests are the page's requests between the previous action and
	// this one's end (documents, XHR/fetch, anything but GET).
	Requests []Request `json:"-"`
}

// String renders the action without its value (which may be a secret).
func (r *Recorded) String() string {
	s := r.Kind
	if r.Target != nil {
		b, _ := json.Marshal(r.Target)
		s += " " + string(b)
	}
	return s
}

// Recorder reports what a user does on a page (docs/record.md). It is made
// by Page.Record; Next returns the actions one by one.
//
// Requests are attributed by the order of CDP events: the recorder's
// binding call and the page's network events arrive on one stream, and a
// request sent after action N's report and before action N+1's belongs to
// N. The page after an action is the page before the next one when the
// user already acted again, else what it shows once the action settled.
type Recorder struct {
	p      *Page
	stop   context.CancelFunc
	remove func() error
	start  int64 // the page's request mark when recording started

	mu     sync.Mutex
	queue  []*Recorded
	owner  map[string]int // request id -> the seq of the action that sent it
	cur    int            // the seq of the latest action reported
	notify chan struct{}  // closed and replaced when the queue grows
	err    error          // a report that could not be decoded
	closed bool
}

// ErrRecordingClosed is returned by Next once the recorder was closed and
// every action reported before was returned.
var ErrRecordingClosed = errors.New("recording closed")

// Record starts the in-page recorder on p, in the current document and in
// every document p loads later: user input (trusted events only) is turned
// into actions, which Next returns. The engine's own actions on p are
// recorded like a person's (they are CDP input too): do not act on a page
// while recording it.
func (p *Page) Record(ctx context.Context) (*Recorder, error) {
	rpc := p.rod.Context(ctx)
	if err := (proto.RuntimeAddBinding{Name: recordBinding}).Call(rpc); err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "recorder binding", Err: err}
	}
	remove, err := rpc.EvalOnNewDocument(`window.__mk && window.__mk.recordStart()`)
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "install recorder", Err: err}
	}
	evCtx, stop := context.WithCancel(context.Background())
	r := &Recorder{p: p, stop: stop, remove: remove, start: p.RequestMark(), owner: map[string]int{}, notify: make(chan struct{})}
	go p.rod.Context(evCtx).EachEvent(
		func(e *proto.RuntimeBindingCalled) {
			if e.Name == recordBinding {
				r.report(e.Payload)
			}
		},
		func(e *proto.NetworkRequestWillBeSent) {
			r.mu.Lock()
			if r.cur > 0 {
				r.owner[string(e.RequestID)] = r.cur
			}
			r.mu.Unlock()
		},
	)()
	if err := p.call(ctx, nil, mkRecordStart); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Recorder) report(payload string) {
	var a Recorded
	err := json.Unmarshal([]byte(payload), &a)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = &Error{Code: CodeBrowser, Msg: "decode recorded action", Err: err}
	} else {
		// Seq restarts in every document: renumber. Pointing sends no
		// request: the requests after it belong to the action before it.
		if a.Kind != "assert" && a.Kind != "point" {
			r.cur++
		}
		a.Seq = r.cur
		r.queue = append(r.queue, &a)
	}
	close(r.notify)
	r.notify = make(chan struct{})
}

// Next waits for the user's next action and returns it once its effects
// settled (at most a few seconds: the requests it started and a frame
// after them), with the page's state after it and its requests.
func (r *Recorder) Next(ctx context.Context) (*Recorded, error) {
	for {
		r.mu.Lock()
		if r.err != nil {
			err := r.err
			r.err = nil
			r.mu.Unlock()
			return nil, err
		}
		if len(r.queue) > 0 {
			a := r.queue[0]
			r.queue = r.queue[1:]
			r.mu.Unlock()
			r.observe(ctx, a)
			return a, nil
		}
		if r.closed {
			r.mu.Unlock()
			return nil, ErrRecordingClosed
		}
		ch := r.notify
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// observe fills in a's state after it and the requests it sent.
func (r *Recorder) observe(ctx context.Context, a *Recorded) {
	if a.Kind == "assert" || a.Kind == "point" {
		return // no effect of its own
	}
	r.mu.Lock()
	var next *Recorded
	if len(r.queue) > 0 {
		next = r.queue[0]
	}
	r.mu.Unlock()
	switch {
	case next != nil && next.Before != nil:
		a.After = next.Before
	case a.Kind == "fill":
		// A fill's effects are read at the next action (or not at all).
	default:
		wctx, cancel := context.WithTimeout(ctx, recordSettle)
		_ = r.p.WaitReady(wctx)
		var ready string
		_ = r.p.call(wctx, &ready, mkNextFrame)
		cancel()
		var st RecordState
		if err := r.p.call(ctx, &st, mkRecordState); err == nil {
			a.After = &st
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.p.Requests(r.start) {
		if r.owner[q.ID] != a.Seq {
			continue
		}
		if q.Type == "Document" || q.Type == "XHR" || q.Type == "Fetch" || (q.Method != "GET" && q.Method != "HEAD" && q.Method != "OPTIONS") {
			a.Requests = append(a.Requests, q)
		}
	}
}

// Pending reports whether an action is waiting to be returned by Next.
func (r *Recorder) Pending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queue) > 0
}

// Flush asks the page to report a field typed into but not yet left, so
// that the last fill of a recording is not lost.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	n, ch := r.cur, r.notify
	r.mu.Unlock()
	var sent bool
	if err := r.p.call(ctx, &sent, mkRecordFlush); err != nil || !sent {
		return err
	}
	// The report arrives as an event after the call's answer: wait for it.
	wctx, cancel := context.WithTimeout(ctx, recordSettle)
	defer cancel()
	for {
		r.mu.Lock()
		got := r.cur > n
		r.mu.Unlock()
		if got {
			return nil
		}
		select {
		case <-ch:
			r.mu.Lock()
			ch = r.notify
			r.mu.Unlock()
		case <-wctx.Done():
			return nil
		}
	}
}

// Close stops recording: later documents get no recorder, and Next
// returns what was already reported, then ErrRecordingClosed.
func (r *Recorder) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	close(r.notify)
	r.notify = make(chan struct{})
	r.mu.Unlock()
	r.stop()
	if r.remove != nil {
		_ = r.remove()
	}
	_ = proto.RuntimeRemoveBinding{Name: recordBinding}.Call(r.p.rod)
}
