package engine

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// Goto navigates to url and waits for the new document's load event. It fails
// with navigation_failed when the browser reports a network error or the
// document answers with an HTTP error status.
func (p *Page) Goto(ctx context.Context, url string) error {
	rp := p.rod.Context(ctx)
	if err := (proto.PageEnable{}).Call(rp); err != nil {
		return &Error{Code: CodeBrowser, Msg: "page enable", Err: err}
	}
	loaded := make(chan struct{}, 1)
	evCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	wait := p.rod.Context(evCtx).EachEvent(func(e *proto.PageLoadEventFired) bool {
		select {
		case loaded <- struct{}{}:
		default:
		}
		return true
	})
	go wait()
	mark := p.RequestMark()
	res, err := proto.PageNavigate{URL: url}.Call(rp)
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "goto " + url, Err: ctx.Err()}
		}
		return &Error{Code: CodeNavFailed, Msg: "goto " + url, Err: err}
	}
	if res.ErrorText != "" {
		return &Error{Code: CodeNavFailed, Msg: "goto " + url + ": " + res.ErrorText}
	}
	if res.LoaderID != "" { // same-document navigations (#hash) fire no load event
		select {
		case <-loaded:
		case <-ctx.Done():
			return &Error{Code: CodeTimeout, Msg: "goto " + url + ": waiting for load", Err: ctx.Err()}
		}
	}
	for _, r := range p.Requests(mark) {
		if r.Type == string(proto.NetworkResourceTypeDocument) && r.Status >= 400 {
			return &Error{Code: CodeNavFailed, Msg: "goto " + url + ": HTTP " + itoa(r.Status)}
		}
	}
	return nil
}
