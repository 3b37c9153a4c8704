package engine

import (
	"context"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

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
	events context.Context    // the event goroutines' context (ends at Close)
	hooked *hookState         // the context's NetworkHook, once installed

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
	p := &Page{ctx: c, rod: rp, cancel: cancel, events: evCtx, byID: map[string]*Request{}, changed: make(chan struct{})}
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
			if e.Frame.ParentID == "" {
				c.noteOrigin(originOf(e.Frame.URL))
			}
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
	if err := p.installHook(ctx, c.networkHook()); err != nil {
		cancel()
		return nil, err
	}
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

// Context returns the browser context the page belongs to.
func (p *Page) Context() *Context { return p.ctx }

// Rod returns the underlying rod page, for callers that need raw CDP.
func (p *Page) Rod() *rod.Page { return p.rod }

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
	p.ctx.untrack(p)
	if p.serving() {
		p.leaveDocument()
	}
	err := p.rod.Timeout(5 * time.Second).Close()
	// Only now: the page's event handlers (a Serve hook among them) answer
	// until its target is gone.
	p.cancel()
	return err
}

// screenshotQuiet returns a PNG of the viewport with its secrets masked
// (MaskedScreenshot), or nil if it cannot be taken (a trace must never
// fail a step).
func (p *Page) screenshotQuiet(ctx context.Context) []byte {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	b, err := p.MaskedScreenshot(ctx)
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
