package engine

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

//go:embed js/*.js
var jsFS embed.FS

// agentJS is the in-page agent: every file in js/ concatenated in name order.
// It defines window.__mk once per document.
var agentJS = func() string {
	names, err := fs.Glob(jsFS, "js/*.js")
	if err != nil {
		panic(err) // the embed pattern is a constant; this cannot fail at run time
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("(() => {\nif (window.__mk) return;\nconst mk = window.__mk = {};\n")
	for _, n := range names {
		src, _ := jsFS.ReadFile(n)
		fmt.Fprintf(&b, "// ---- %s\n", n)
		b.Write(src)
		b.WriteString("\n")
	}
	b.WriteString("})();\n")
	return b.String()
}()

// Request is one network request seen by a page.
type Request struct {
	Seq      int64     `json:"seq"` // order of arrival, for "during the action" windows
	ID       string    `json:"id"`
	URL      string    `json:"url"`
	Method   string    `json:"method"`
	Type     string    `json:"type,omitempty"` // Document, XHR, Fetch, ...
	Status   int       `json:"status,omitempty"`
	Failed   string    `json:"failed,omitempty"` // error text when the request failed
	Done     bool      `json:"done"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitempty"`
	// Frame and Loader identify the frame and the document (CDP loader id)
	// that made the request: Chromium reports no end for a request whose
	// document was replaced, so WaitReady skips requests of old documents.
	Frame  string `json:"frame,omitempty"`
	Loader string `json:"loader,omitempty"`
}

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload) the
// page opened. Alerts are accepted; confirms, prompts and beforeunload are
// dismissed, so a page cannot confirm a dangerous action on its own.
type Dialog struct {
	Type     string    `json:"type"`
	Message  string    `json:"message"`
	Accepted bool      `json:"accepted"`
	At       time.Time `json:"at"`
}

// Page is one tab. Its methods are safe for use by one goroutine at a time.
type Page struct {
	ctx    *Context
	rod    *rod.Page
	cancel context.CancelFunc // stops the event goroutines

	mu       sync.Mutex
	seq      int64
	requests []*Request
	byID     map[string]*Request
	inflight int
	dialogs  []Dialog
	popups   []*Page
	secrets  []string
	changed  chan struct{} // closed and replaced whenever network state changes
	tracer   Tracer        // overrides the browser's tracer when set
	pointer  *Point        // where the last trusted pointer input went
	closed   bool
}

func newPage(ctx context.Context, c *Context, rp *rod.Page) (*Page, error) {
	w, h := c.browser.opts.Width, c.browser.opts.Height
	if w == 0 || h == 0 {
		w, h = 1280, 800
	}
	evCtx, cancel := context.WithCancel(context.Background())
	p := &Page{ctx: c, rod: rp, cancel: cancel, byID: map[string]*Request{}, changed: make(chan struct{})}
	rpc := rp.Context(ctx)
	if err := (proto.EmulationSetDeviceMetricsOverride{Width: w, Height: h, DeviceScaleFactor: 1}).Call(rpc); err != nil {
		cancel()
		return nil, &Error{Code: CodeBrowser, Msg: "viewport", Err: err}
	}
	if err := (proto.PageEnable{}).Call(rpc); err != nil {
		cancel()
		return nil, &Error{Code: CodeBrowser, Msg: "page events", Err: err}
	}
	if err := (proto.NetworkEnable{}).Call(rpc); err != nil {
		cancel()
		return nil, &Error{Code: CodeBrowser, Msg: "network", Err: err}
	}
	if _, err := rpc.EvalOnNewDocument(agentJS); err != nil {
		cancel()
		return nil, &Error{Code: CodeBrowser, Msg: "install agent", Err: err}
	}
	go rp.Context(evCtx).EachEvent(
		func(e *proto.NetworkRequestWillBeSent) {
			p.mu.Lock()
			defer p.mu.Unlock()
			id := string(e.RequestID)
			if old, ok := p.byID[id]; ok && !old.Done {
				// A redirect reuses the id: the old hop is done.
				old.Done, old.Finished = true, time.Now()
				old.Status = redirectStatus(e.RedirectResponse)
				p.inflight--
			}
			p.seq++
			r := &Request{Seq: p.seq, ID: id, URL: e.Request.URL, Method: e.Request.Method, Type: string(e.Type), Started: time.Now(),
				Frame: string(e.FrameID), Loader: string(e.LoaderID)}
			p.requests = append(p.requests, r)
			p.byID[id] = r
			p.pruneLocked()
			p.inflight++
			p.notifyLocked()
		},
		func(e *proto.NetworkResponseReceived) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if r, ok := p.byID[string(e.RequestID)]; ok {
				r.Status = e.Response.Status
			}
		},
		func(e *proto.NetworkLoadingFinished) {
			p.finish(string(e.RequestID), "")
		},
		func(e *proto.NetworkLoadingFailed) {
			msg := e.ErrorText
			if msg == "" {
				msg = "failed"
			}
			p.finish(string(e.RequestID), msg)
		},
		func(e *proto.PageFrameNavigated) {
			// Chromium never reports the end of requests a navigation
			// abandoned: settle them so in-flight counts do not leak.
			p.mu.Lock()
			defer p.mu.Unlock()
			fid, lid := string(e.Frame.ID), string(e.Frame.LoaderID)
			n := 0
			for _, r := range p.requests {
				if !r.Done && r.Frame == fid && r.Loader != "" && r.Loader != lid {
					r.Done, r.Finished, r.Failed = true, time.Now(), "abandoned: the frame navigated"
					p.inflight--
					n++
				}
			}
			if n > 0 {
				p.notifyLocked()
			}
		},
		func(e *proto.PageJavascriptDialogOpening) {
			accept := e.Type == proto.PageDialogTypeAlert
			p.mu.Lock()
			p.dialogs = append(p.dialogs, Dialog{Type: string(e.Type), Message: e.Message, Accepted: accept, At: time.Now()})
			p.mu.Unlock()
			go func() { _ = proto.PageHandleJavaScriptDialog{Accept: accept}.Call(rp.Context(evCtx)) }()
		},
	)()
	b := c.rod
	go b.Context(evCtx).EachEvent(func(e *proto.TargetTargetCreated) {
		if e.TargetInfo.OpenerID != rp.TargetID || e.TargetInfo.Type != proto.TargetTargetInfoTypePage {
			return
		}
		go p.adoptPopup(evCtx, e.TargetInfo.TargetID)
	})()
	if err := p.ensureAgent(ctx); err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

func redirectStatus(r *proto.NetworkResponse) int {
	if r == nil {
		return 0
	}
	return r.Status
}

func (p *Page) finish(id, failed string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.byID[id]
	if !ok || r.Done {
		return
	}
	r.Done, r.Finished, r.Failed = true, time.Now(), failed
	p.inflight--
	p.notifyLocked()
}

// maxRequests bounds the request log of a long-lived page; finished
// requests beyond it are dropped oldest first (marks stay valid: they are
// sequence numbers, not indexes).
const maxRequests = 4096

func (p *Page) pruneLocked() {
	if len(p.requests) <= maxRequests {
		return
	}
	keep := p.requests[:0]
	drop := len(p.requests) - maxRequests/2
	for _, r := range p.requests {
		if drop > 0 && r.Done {
			drop--
			if p.byID[r.ID] == r {
				delete(p.byID, r.ID)
			}
			continue
		}
		keep = append(keep, r)
	}
	p.requests = keep
}

func (p *Page) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Page) adoptPopup(ctx context.Context, id proto.TargetTargetID) {
	rp, err := p.ctx.rod.Context(ctx).PageFromTarget(id)
	if err != nil {
		return
	}
	np, err := newPage(ctx, p.ctx, rp.Context(context.Background()))
	if err != nil {
		return
	}
	np.secrets = p.Secrets()
	p.ctx.track(np)
	p.mu.Lock()
	p.popups = append(p.popups, np)
	p.notifyLocked()
	p.mu.Unlock()
}

// Rod returns the underlying rod page, for callers that need raw CDP.
func (p *Page) Rod() *rod.Page { return p.rod }

// Popups returns the pages this page opened (new tabs, window.open), oldest
// first.
func (p *Page) Popups() []*Page {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Page(nil), p.popups...)
}

// WaitPopup waits until the page has opened more than n popups and returns
// the newest.
func (p *Page) WaitPopup(ctx context.Context, n int) (*Page, error) {
	for {
		p.mu.Lock()
		if len(p.popups) > n {
			np := p.popups[len(p.popups)-1]
			p.mu.Unlock()
			return np, nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, &Error{Code: CodeTimeout, Msg: "no popup opened", Err: ctx.Err()}
		case <-ch:
		}
	}
}

// Dialogs returns the JavaScript dialogs the page opened so far.
func (p *Page) Dialogs() []Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Dialog(nil), p.dialogs...)
}

// Requests returns the requests with Seq > after, in order.
func (p *Page) Requests(after int64) []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Request
	for _, r := range p.requests {
		if r.Seq > after {
			out = append(out, *r)
		}
	}
	return out
}

// RequestMark returns the current request sequence number: requests made
// after this call have a larger Seq.
func (p *Page) RequestMark() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// NetworkChanged returns the number of requests in flight and a channel that
// is closed at the next network event.
func (p *Page) NetworkChanged() (inflight int, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inflight, p.changed
}

// AddSecret registers a value that must never appear in traces or evidence.
func (p *Page) AddSecret(v string) {
	if v == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.secrets = append(p.secrets, v)
}

// Secrets returns the registered secret values.
func (p *Page) Secrets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.secrets...)
}

// URL returns the page's current URL.
func (p *Page) URL(ctx context.Context) (string, error) {
	info, err := p.rod.Context(ctx).Info()
	if err != nil {
		return "", &Error{Code: CodeBrowser, Msg: "page info", Err: err}
	}
	return info.URL, nil
}

// Close closes the page.
func (p *Page) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.ctx.untrack(p)
	return p.rod.Timeout(5 * time.Second).Close()
}

const missingAgent = "__mk_missing__"

// ensureAgent installs the in-page agent into the current document if a
// navigation raced EvalOnNewDocument (about:blank, a page opened by the site).
func (p *Page) ensureAgent(ctx context.Context) error {
	_, err := p.rod.Context(ctx).Evaluate(rod.Eval("() => {\n" + agentJS + "\n}"))
	if err != nil {
		return &Error{Code: CodeBrowser, Msg: "install agent", Err: err}
	}
	return nil
}

// call invokes window.__mk[fn](args...) in the page's main frame, awaiting a
// returned promise, and decodes the JSON result into out (when non-nil).
func (p *Page) call(ctx context.Context, out any, fn string, args ...any) error {
	js := `function(fn, ...args) { return window.__mk ? window.__mk[fn](...args) : "` + missingAgent + `" }`
	allArgs := append([]any{fn}, args...)
	for attempt := 0; ; attempt++ {
		res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, allArgs...).ByPromise())
		if err != nil {
			if ctx.Err() != nil {
				return &Error{Code: CodeTimeout, Msg: "in-page " + fn, Err: ctx.Err()}
			}
			return &Error{Code: CodeBrowser, Msg: "in-page " + fn, Err: err}
		}
		if res.Value.Str() == missingAgent && attempt == 0 {
			if err := p.ensureAgent(ctx); err != nil {
				return err
			}
			continue
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal([]byte(res.Value.JSON("", "")), out); err != nil {
			return &Error{Code: CodeBrowser, Msg: "decode in-page " + fn + " result", Err: err}
		}
		return nil
	}
}

// callObject is call for functions that return a DOM node: it returns a rod
// element handle, or nil when the function returned null.
func (p *Page) callObject(ctx context.Context, fn string, args ...any) (*rod.Element, error) {
	js := `function(fn, ...args) { return window.__mk ? window.__mk[fn](...args) : null }`
	res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, append([]any{fn}, args...)...).ByObject())
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "in-page " + fn, Err: err}
	}
	if res.ObjectID == "" {
		return nil, nil
	}
	el, err := p.rod.Context(ctx).ElementFromObject(res)
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "element handle", Err: err}
	}
	return el, nil
}

// evalJSON evaluates a JS function expression in the main frame and decodes
// its JSON result into out.
func (p *Page) evalJSON(ctx context.Context, out any, js string, args ...any) error {
	res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, args...).ByPromise())
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "evaluate", Err: ctx.Err()}
		}
		return &Error{Code: CodeBrowser, Msg: "evaluate", Err: err}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), out); err != nil {
		return &Error{Code: CodeBrowser, Msg: "decode evaluate result", Err: err}
	}
	return nil
}

// screenshotQuiet returns a PNG of the viewport, or nil if it cannot be
// taken (a trace must never fail a step).
func (p *Page) screenshotQuiet(ctx context.Context) []byte {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	b, err := p.rod.Context(ctx).Screenshot(false, nil)
	if err != nil {
		return nil
	}
	return b
}

// SetTracer sends this page's trace events to t instead of the browser's
// tracer (nil restores the browser's).
func (p *Page) SetTracer(t Tracer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tracer = t
}
