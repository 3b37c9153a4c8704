package engine

import (
	"context"
	"strings"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// WaitReady waits until the page is ready to be acted on after a
// navigation: document.readyState is "complete" and no XHR or fetch request
// is in flight (judged from the Go-side network log), with two frames in
// between so that work scheduled by the last response (a chained request, a
// render) has had its chance to start. Every wait is on an event or a
// promise -- the readystatechange/load events, the page's network events, an
// animation frame -- never on a fixed quiet period. A document replaced while
// waiting is waited on afresh.
//
// Readiness is a gate, not proof: a page may start more work at any time.
// Steps prove their effect with post-conditions (Verify).
//
// It fails with CodeTimeout when ctx ends first (the message says what was
// still pending: the ready state or the requests in flight) and with
// CodeBrowser when the page cannot be evaluated.
func (p *Page) WaitReady(ctx context.Context) error {
	var low int64 // every XHR/fetch with Seq <= low is known to be done
	for round := 0; ; round++ {
		if err := p.waitComplete(ctx); err != nil {
			return err
		}
		var err error
		if low, err = p.waitXHRIdle(ctx, low); err != nil {
			return err
		}
		// Two frames for promise callbacks of the last response to run; if
		// they started new requests (or a navigation), wait again. low is
		// the last request the idle scan saw: anything after it is new.
		// One frame is usually enough, but on a loaded machine the body of
		// the last response can reach the page's main thread after the
		// first frame, or the network event of the request its handler
		// starts can reach us after the frame's answer: the second frame
		// catches both (with one frame, TestWaitReadyXHR missed the
		// chained request once with two test suites running at once).
		quiet := true
		for f := 0; f < 2 && quiet; f++ {
			var state string
			if err := p.call(ctx, &state, mkNextFrame); err != nil {
				if ctx.Err() == nil && documentGone(err) && round < maxRearms {
					quiet = false
					break
				}
				return readyErr(ctx, "waiting for a frame", err)
			}
			quiet = state == "complete" && !p.xhrSince(low)
		}
		if quiet {
			return nil
		}
		if round >= maxRearms {
			return &Error{Code: CodeTimeout, Msg: "page kept starting requests or navigating; not ready after " + itoa(round+1) + " rounds"}
		}
	}
}

// waitComplete waits for document.readyState == "complete", re-arming on a
// new document if the current one is replaced.
func (p *Page) waitComplete(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		var state string
		err := p.call(ctx, &state, mkWaitReady)
		if err == nil && state == "complete" {
			return nil
		}
		if attempt < maxRearms && ctx.Err() == nil && (err == nil || documentGone(err)) {
			continue // "replaced": wait on the new document
		}
		if err == nil {
			err = &Error{Code: CodeTimeout, Msg: "document replaced " + itoa(attempt+1) + " times while waiting for readyState complete"}
		}
		return readyErr(ctx, "waiting for readyState complete", err)
	}
}

// waitXHRIdle waits until no XHR/fetch request of a live document is in
// flight and returns the highest Seq it examined: every XHR/fetch up to it is
// done or abandoned.
func (p *Page) waitXHRIdle(ctx context.Context, low int64) (int64, error) {
	for {
		_, changed := p.NetworkChanged() // before reading, so no event is missed
		pending, seen := p.pendingXHR(low)
		if len(pending) > 0 {
			// Chromium never ends a request whose document was replaced:
			// only requests of the documents now in the page count.
			pending = p.liveRequests(ctx, pending)
		}
		if len(pending) == 0 {
			return seen, nil
		}
		low = pending[0].Seq - 1
		select {
		case <-changed:
		case <-ctx.Done():
			var urls []string
			for i, r := range pending {
				if i == 5 {
					urls = append(urls, "+"+itoa(len(pending)-5)+" more")
					break
				}
				urls = append(urls, r.Method+" "+r.URL)
			}
			return low, &Error{Code: CodeTimeout, Msg: "not ready: " + itoa(len(pending)) + " XHR/fetch in flight: " + redact.String(strings.Join(urls, ", "), p.Secrets()), Err: ctx.Err()}
		}
	}
}

func isXHR(r Request) bool {
	return r.Type == string(proto.NetworkResourceTypeXHR) || r.Type == string(proto.NetworkResourceTypeFetch)
}

// pendingXHR lists the XHR and fetch requests with Seq > after still in
// flight, oldest first, and the highest Seq it looked at.
func (p *Page) pendingXHR(after int64) (pending []Request, seen int64) {
	seen = after
	for _, r := range p.Requests(after) {
		seen = r.Seq
		if !r.Done && isXHR(r) {
			pending = append(pending, r)
		}
	}
	return pending, seen
}

// liveDocuments maps each frame now in the page to its document's loader id,
// or returns nil when the frame tree cannot be read.
func (p *Page) liveDocuments(ctx context.Context) map[string]string {
	tree, err := proto.PageGetFrameTree{}.Call(p.rod.Context(ctx))
	if err != nil || tree.FrameTree == nil {
		return nil
	}
	live := map[string]string{}
	var walk func(*proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		if t.Frame != nil {
			live[string(t.Frame.ID)] = string(t.Frame.LoaderID)
		}
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)
	return live
}

// stale reports whether r was made by a document that is no longer in the
// page (its frame navigated or was removed). Requests without a loader
// (workers) are never stale.
func stale(r Request, live map[string]string) bool {
	if live == nil || r.Loader == "" || r.Frame == "" {
		return false
	}
	return live[r.Frame] != r.Loader
}

// liveRequests drops the requests of replaced documents.
func (p *Page) liveRequests(ctx context.Context, rs []Request) []Request {
	live := p.liveDocuments(ctx)
	out := rs[:0:0]
	for _, r := range rs {
		if !stale(r, live) {
			out = append(out, r)
		}
	}
	return out
}

// xhrSince reports whether any XHR or fetch request started after mark.
func (p *Page) xhrSince(mark int64) bool {
	for _, r := range p.Requests(mark) {
		if isXHR(r) {
			return true
		}
	}
	return false
}

func readyErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return &Error{Code: CodeTimeout, Msg: "not ready: " + what, Err: ctx.Err()}
	}
	if IsCode(err, CodeTimeout) || IsCode(err, CodeBrowser) {
		return err
	}
	return &Error{Code: CodeBrowser, Msg: what, Err: err}
}
