package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// HookedRequest is a page request a NetworkHook sees (CDP Fetch domain).
type HookedRequest struct {
	Method string
	URL    string
	Header http.Header
	// Body is the request's body as the page sent it (POST data).
	Body []byte
	// Type is the resource type: Document, Script, XHR, Fetch, Image, ...
	Type string
	// NetworkID is the request's id in the Network domain, and Hop counts
	// the redirects before this response (Observe only): the keys of
	// Page.SetCookieHeaders.
	NetworkID string
	Hop       int
	// Seq orders the page's observed responses as Chromium reported them
	// (Observe only; Observe itself runs concurrently).
	Seq int64
}

// HookedResponse is the answer to a HookedRequest: the network's (Observe)
// or one to give the page instead (Serve). Body is decoded (no
// Content-Encoding applies).
type HookedResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrPassthrough, returned by NetworkHook.Serve, lets the request go to
// the network.
var ErrPassthrough = errors.New("engine: pass the request through")

// NetworkHook intercepts every request the pages of a context make, as
// Playwright's routeFromHAR and recordHar do. With Serve set, a request is
// answered by Serve and never sent (offline replay): a nil error fulfils it
// with the response, ErrPassthrough sends it, any other error fails it as
// the network would (net::ERR_FAILED), so the page sees a request that
// could not be made. With only Observe set, requests go to the network and
// Observe sees each answered exchange, its body read before the page gets
// it (recording). Both run on their own goroutine per request.
//
// WebSocket traffic is not intercepted; a popup's very first request can
// precede the hook on its new tab. A page under a Serve hook is taken off its
// document before it closes (Page.Close), so what it was still loading is
// answered by the hook rather than let go to the network.
type NetworkHook struct {
	Serve   func(ctx context.Context, p *Page, r HookedRequest) (*HookedResponse, error)
	Observe func(p *Page, r HookedRequest, resp HookedResponse)
}

// SetNetworkHook intercepts the requests of every page of the context, open
// now or opened later (popups, new tabs), with h. Set it before the pages
// navigate: a request already in flight is not seen.
func (c *Context) SetNetworkHook(ctx context.Context, h *NetworkHook) error {
	c.mu.Lock()
	c.hook = h
	pages := make([]*Page, 0, len(c.pages))
	for p := range c.pages {
		pages = append(pages, p)
	}
	c.mu.Unlock()
	for _, p := range pages {
		if err := p.installHook(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

func (c *Context) networkHook() *NetworkHook {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hook
}

// hookState is a page's installed hook: installed once per page.
type hookState struct {
	once  sync.Once
	err   error
	serve bool // a Serve hook: nothing may reach the network (see Page.Close)

	mu    sync.Mutex
	seq   int64
	hops  map[string]int           // responses observed per network id
	extra map[string][]rawResponse // responseReceivedExtraInfo per network id, in order
}

// rawResponse is what Chromium reports of a response's raw headers.
type rawResponse struct {
	status     int
	setCookies []string
}

// installHook enables the Fetch domain on the page with the hook's stage
// and answers each paused request.
func (p *Page) installHook(ctx context.Context, h *NetworkHook) error {
	if h == nil || (h.Serve == nil && h.Observe == nil) {
		return nil
	}
	p.mu.Lock()
	st := p.hooked
	if st == nil {
		st = &hookState{}
		p.hooked = st
	}
	p.mu.Unlock()
	st.once.Do(func() {
		stage := proto.FetchRequestStageRequest
		if h.Serve == nil {
			stage = proto.FetchRequestStageResponse
		}
		rp := p.rod.Context(ctx)
		if err := (proto.FetchEnable{Patterns: []*proto.FetchRequestPattern{{URLPattern: "*", RequestStage: stage}}}).Call(rp); err != nil {
			st.err = &Error{Code: CodeBrowser, Msg: "network interception", Err: err}
			return
		}
		st.serve = h.Serve != nil
		st.hops, st.extra = map[string]int{}, map[string][]rawResponse{}
		ev := p.rod.Context(p.events) // ends with the page
		go ev.EachEvent(func(e *proto.FetchRequestPaused) {
			var ord order
			if e.ResponseStatusCode != nil { // numbered here, in Chromium's order
				st.mu.Lock()
				st.seq++
				ord = order{seq: st.seq, hop: st.hops[string(e.NetworkID)]}
				st.hops[string(e.NetworkID)]++
				st.mu.Unlock()
			}
			go p.paused(p.events, ev, h, ord, e)
		}, func(e *proto.NetworkResponseReceivedExtraInfo) {
			// Interception never shows Set-Cookie; the raw headers do.
			raw := rawResponse{status: e.StatusCode}
			for k, v := range e.Headers {
				if strings.EqualFold(k, "Set-Cookie") {
					raw.setCookies = append(raw.setCookies, strings.Split(v.Str(), "\n")...)
				}
			}
			st.mu.Lock()
			st.extra[string(e.RequestID)] = append(st.extra[string(e.RequestID)], raw)
			st.mu.Unlock()
		})()
	})
	return st.err
}

// SetCookieHeaders returns the Set-Cookie headers of the hop-th response
// to the request networkID as the browser received them (interception
// hides them: read them once the page is done, since Chromium reports them
// apart and maybe after the response). Only pages under an Observe hook
// keep them.
func (p *Page) SetCookieHeaders(networkID string, hop int) []string {
	p.mu.Lock()
	st := p.hooked
	p.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	list := st.extra[networkID]
	if hop < len(list) {
		return append([]string(nil), list[hop].setCookies...)
	}
	return nil
}

// order is a response's place among the page's (Seq) and its request's
// redirects (Hop).
type order struct {
	seq int64
	hop int
}

func (p *Page) paused(ctx context.Context, rp *rod.Page, h *NetworkHook, ord order, e *proto.FetchRequestPaused) {
	req := HookedRequest{Method: e.Request.Method, URL: e.Request.URL + e.Request.URLFragment, Header: http.Header{}, Type: string(e.ResourceType),
		NetworkID: string(e.NetworkID)}
	if i := strings.IndexByte(req.URL, '#'); i >= 0 {
		req.URL = req.URL[:i]
	}
	for k, v := range e.Request.Headers {
		req.Header.Set(k, v.String())
	}
	if e.Request.HasPostData {
		req.Body = postData(e.Request)
	}
	atResponse := e.ResponseStatusCode != nil || e.ResponseErrorReason != ""
	if h.Serve != nil && !atResponse {
		resp, err := h.Serve(ctx, p, req)
		switch {
		case errors.Is(err, ErrPassthrough):
			_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(rp)
		case err != nil:
			_ = proto.FetchFailRequest{RequestID: e.RequestID, ErrorReason: proto.NetworkErrorReasonFailed}.Call(rp)
		default:
			_ = fulfil(rp, e.RequestID, resp)
		}
		return
	}
	if e.ResponseErrorReason != "" || e.ResponseStatusCode == nil {
		_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(rp)
		return // the network failed: nothing to record
	}
	resp := HookedResponse{Status: *e.ResponseStatusCode, Header: http.Header{}}
	for _, hd := range e.ResponseHeaders {
		for _, v := range strings.Split(hd.Value, "\n") {
			resp.Header.Add(hd.Name, v)
		}
	}
	if resp.Status < 300 || resp.Status >= 400 {
		// A redirect has no body to read (and Chromium refuses to).
		if body, err := (proto.FetchGetResponseBody{RequestID: e.RequestID}).Call(rp); err == nil {
			resp.Body = decodeBody(body)
		}
	}
	req.Seq, req.Hop = ord.seq, ord.hop
	if h.Observe != nil {
		h.Observe(p, req, resp)
	}
	_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(rp)
}

func postData(r *proto.NetworkRequest) []byte {
	if len(r.PostDataEntries) > 0 {
		var out []byte
		for _, en := range r.PostDataEntries {
			out = append(out, en.Bytes...)
		}
		return out
	}
	return []byte(r.PostData)
}

func decodeBody(b *proto.FetchGetResponseBodyResult) []byte {
	if b.Base64Encoded {
		if data, err := base64.StdEncoding.DecodeString(b.Body); err == nil {
			return data
		}
	}
	return []byte(b.Body)
}

func fulfil(rp *rod.Page, id proto.FetchRequestID, r *HookedResponse) error {
	hs := make([]*proto.FetchHeaderEntry, 0, len(r.Header))
	for k, vs := range r.Header {
		for _, v := range vs {
			hs = append(hs, &proto.FetchHeaderEntry{Name: k, Value: v})
		}
	}
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := r.Body
	if body == nil {
		body = []byte{} // nil would ask for "the original body", which there is none of
	}
	return proto.FetchFulfillRequest{RequestID: id, ResponseCode: status, ResponseHeaders: hs, Body: body,
		ResponsePhrase: http.StatusText(status)}.Call(rp)
}

// serving reports whether the page's requests are answered by a Serve hook.
func (p *Page) serving() bool {
	p.mu.Lock()
	st := p.hooked
	p.mu.Unlock()
	if st == nil {
		return false
	}
	st.once.Do(func() {}) // installed, or never will be
	return st.serve && st.err == nil
}

// leaveDocument navigates a page under a Serve hook to about:blank before it
// closes. Chromium stops pausing a closing page's requests before the page
// stops making them (a module graph still importing, a poll, the favicon):
// those would go to the network, past the hook. about:blank makes no
// request, and until it commits the old document's requests are still
// answered by the hook.
func (p *Page) leaveDocument() {
	ctx, cancel := context.WithTimeout(p.events, leaveDocumentWait)
	defer cancel()
	_, _ = proto.PageNavigate{URL: "about:blank"}.Call(p.rod.Context(ctx))
}

// leaveDocumentWait bounds leaveDocument: a page that cannot leave its
// document (a beforeunload that refuses) is closed anyway.
const leaveDocumentWait = 2 * time.Second
