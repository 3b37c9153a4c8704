package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

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

func (w *actWatch) waitPopup(ctx context.Context, res *ActResult) error {
	pctx, cancel := context.WithTimeout(ctx, actPopupWait)
	defer cancel()
	np, err := w.p.WaitPopup(pctx, w.pop0)
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the popup the action opened", Err: ctx.Err()}
		}
		res.note("the page announced a popup but none was attached within %s (blocked?)", actPopupWait)
		return nil
	}
	res.Popup = np
	w.mu.Lock()
	want := w.popupURL
	w.mu.Unlock()
	// Bounded like a navigation: a popup whose load never fires is still
	// returned, with a note.
	lctx, lcancel := context.WithTimeout(ctx, actPopupWait+actLoadWait)
	defer lcancel()
	url, err := waitPageLoaded(lctx, np, want != "" && want != "about:blank")
	if url == "" {
		url, _ = np.URL(ctx)
	}
	res.PopupURL = url
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the popup to load", Err: ctx.Err()}
		}
		res.note("popup not confirmed loaded: %v", err)
	}
	return nil
}

// waitPageLoaded waits until the page shows a document other than the
// initial about:blank (when realURL) whose load event has fired, and returns
// its URL. It is driven by the page's load event and Target info changes.
func waitPageLoaded(ctx context.Context, np *Page, realURL bool) (string, error) {
	rp := np.rod.Context(ctx)
	for attempt := 0; attempt < 20; attempt++ {
		res, err := rp.Evaluate(rod.Eval(`() => new Promise((resolve) => {
			const done = () => resolve({url: location.href, ready: true});
			if (document.readyState === 'complete') done();
			else addEventListener('load', done, {once: true});
		})`).ByPromise())
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			// The initial document was replaced while waiting: try again in
			// the new one.
			continue
		}
		var out struct {
			URL string `json:"url"`
		}
		_ = res.Value.Unmarshal(&out)
		if !realURL || (out.URL != "about:blank" && out.URL != "") {
			return out.URL, nil
		}
		// Still the initial about:blank: wait for the target to navigate.
		if err := waitTargetURLChange(ctx, np); err != nil {
			return out.URL, err
		}
	}
	info, err := rp.Info()
	if err != nil {
		return "", err
	}
	return info.URL, errors.New("page did not settle")
}

// waitTargetURLChange waits for the page's target to report a URL other
// than about:blank.
func waitTargetURLChange(ctx context.Context, np *Page) error {
	evCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	wait := np.ctx.rod.Context(evCtx).EachEvent(func(e *proto.TargetTargetInfoChanged) bool {
		return e.TargetInfo.TargetID == np.rod.TargetID && e.TargetInfo.URL != "about:blank" && e.TargetInfo.URL != ""
	})
	go func() { wait(); close(done) }()
	if info, err := np.rod.Context(ctx).Info(); err == nil && info.URL != "about:blank" && info.URL != "" {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Diagnosis codes of steps that address tabs (new tabs and popups).
const (
	// CodeNoPopup: a step that was to open a tab or popup opened none.
	CodeNoPopup Code = "no_popup"
	// CodePageClosed: the page is closed (a popup that closed itself, a
	// tab a step closed).
	CodePageClosed Code = "page_closed"
)

// WaitOpened returns the popup the page opened after it had opened n (see
// Popups), waiting up to wait for one to be attached; it fails with
// CodeNoPopup when none was. A step's own popup is normally in
// StepResult.Popup already: this covers a tab opened late (after a request
// the click started).
func (p *Page) WaitOpened(ctx context.Context, n int, wait time.Duration) (*Page, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	np, err := p.WaitPopup(wctx, n)
	if err == nil {
		return np, nil
	}
	if ctx.Err() != nil {
		return nil, &Error{Code: CodeTimeout, Msg: "waiting for the tab the step opens", Err: ctx.Err()}
	}
	return nil, &Error{Code: CodeNoPopup, Msg: fmt.Sprintf("the step opened no tab or popup within %s (a link without target=_blank navigates the same tab; a blocked window.open opens nothing)", wait)}
}

// Closed reports whether the page is closed: by Close, or by the page
// itself or the user (window.close, the popup's own script). It asks the
// browser only when Close was not called; a browser that cannot answer
// counts as open, so the step that follows reports the real failure.
func (p *Page) Closed(ctx context.Context) bool {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return true
	}
	res, err := proto.TargetGetTargets{}.Call(p.ctx.rod.Context(ctx))
	if err != nil {
		return false
	}
	for _, t := range res.TargetInfos {
		if t.TargetID == p.rod.TargetID {
			return false
		}
	}
	return true
}

// Activate brings the page to the front. A page behind another tab is
// hidden: it gets no animation frames and its timers are throttled, so
// actions and checks that wait for a frame stall there. Switching tabs
// calls this once per switch.
func (p *Page) Activate(ctx context.Context) error {
	if err := (proto.PageBringToFront{}).Call(p.rod.Context(ctx)); err != nil {
		return &Error{Code: CodeBrowser, Msg: "bring the tab to the front", Err: err}
	}
	return nil
}

// UntilClosed returns a context that ends when ctx does or when the page
// closes (a popup that closes itself while a step runs in it), so that
// the step does not wait out its timeout on a page that is gone. Calls on
// a closed page can block until their context ends; callers check Closed
// after an error.
func (p *Page) UntilClosed(ctx context.Context) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(ctx)
	id := p.rod.TargetID
	wait := p.ctx.rod.Context(cctx).EachEvent(func(e *proto.TargetTargetDestroyed) bool {
		return e.TargetID == id
	}, func(e *proto.TargetTargetCrashed) bool {
		return e.TargetID == id
	})
	go func() {
		wait()
		cancel()
	}()
	return cctx, cancel
}
