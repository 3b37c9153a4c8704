package engine

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// actPopupWait bounds the wait for a popup the browser announced to be
// attached, and for a navigation the page requested to start.
const actPopupWait = 5 * time.Second

// actLoadWait is how long an action waits for a committed document's load
// event before settling for DOMContentLoaded.
const actLoadWait = 5 * time.Second

// actWatch records, from just before an action's input, the page events that
// tell whether the action started a navigation or opened a popup.
//
// The rule (settle): after the input, the page is given one animation frame
// and one task turn (mk.actSettle) to run what the input queued — click
// handlers, a link's or submit button's default action, a scheduled form
// submission, window.open. The Page and Target events seen by then decide:
//
//   - a main-frame Page.frameRequestedNavigation (to a non-javascript: URL,
//     in the current tab), Page.frameStartedLoading or Page.frameNavigated
//     means a navigation is under way: wait (bounded by ctx) for
//     Page.frameNavigated then Page.loadEventFired — or for
//     Page.navigatedWithinDocument (same-document), or for
//     Page.frameStoppedLoading without a commit (the navigation was
//     cancelled, became a download or got a 204). A request that never
//     started loading within actPopupWait is given up on with a note; a
//     committed document whose load event has not fired actLoadWait after
//     the commit is accepted at DOMContentLoaded, with a note.
//   - a Page.windowOpen, a frameRequestedNavigation into a new tab/window, or
//     a Target.targetCreated whose opener is this page means a popup: wait
//     (bounded by actPopupWait and ctx) for the engine to attach it
//     (Page.WaitPopup), then for its first real document to load.
//   - nothing seen: return at once. Navigations a page starts later (after a
//     fetch, a timer) are not waited for; the step's post-conditions wait
//     for their effects.
//
// Actions whose input cannot plausibly navigate (fill, upload) skip the
// settle round trip and only act on signals already seen.
type actWatch struct {
	p      *Page
	cancel context.CancelFunc
	main   proto.PageFrameID
	pop0   int
	mark   int64

	mu          sync.Mutex
	changed     chan struct{}
	requested   bool // navigation requested or loading started
	started     bool
	committed   bool
	loaded      bool
	dcl         bool // DOMContentLoaded of the committed document
	stopped     bool
	sameDoc     bool
	url         string
	popup       bool
	popupURL    string
	popupTarget proto.TargetTargetID
	chooser     *proto.PageFileChooserOpened
}

func (a *actor) watch(ctx context.Context) *actWatch {
	p := a.p
	evCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &actWatch{p: p, cancel: cancel, main: proto.PageFrameID(p.rod.TargetID), pop0: len(p.Popups()), mark: p.RequestMark(), changed: make(chan struct{})}
	isMain := func(id proto.PageFrameID) bool { return id == w.main }
	pageWait := p.rod.Context(evCtx).EachEvent(
		func(e *proto.PageFrameRequestedNavigation) {
			if !isMain(e.FrameID) || strings.HasPrefix(strings.ToLower(e.URL), "javascript:") {
				return
			}
			w.update(func() {
				switch e.Disposition {
				case proto.PageClientNavigationDispositionNewTab, proto.PageClientNavigationDispositionNewWindow:
					w.popup = true
					w.popupURL = e.URL
				case proto.PageClientNavigationDispositionDownload:
				default:
					w.requested = true
					w.url = e.URL
				}
			})
		},
		func(e *proto.PageFrameStartedLoading) {
			if isMain(e.FrameID) {
				w.update(func() { w.requested, w.started = true, true })
			}
		},
		func(e *proto.PageFrameNavigated) {
			if e.Frame != nil && e.Frame.ParentID == "" {
				w.update(func() {
					w.requested, w.started, w.committed, w.loaded, w.dcl, w.stopped, w.url = true, true, true, false, false, false, e.Frame.URL
				})
			}
		},
		func(e *proto.PageNavigatedWithinDocument) {
			if isMain(e.FrameID) {
				w.update(func() { w.sameDoc, w.url = true, e.URL })
			}
		},
		func(e *proto.PageDomContentEventFired) {
			w.update(func() {
				if w.committed {
					w.dcl = true
				}
			})
		},
		func(e *proto.PageLoadEventFired) {
			w.update(func() {
				if w.committed {
					w.loaded = true
				}
			})
		},
		func(e *proto.PageFrameStoppedLoading) {
			if isMain(e.FrameID) {
				w.update(func() {
					if w.started {
						w.stopped = true
					}
				})
			}
		},
		func(e *proto.PageWindowOpen) {
			w.update(func() {
				w.popup = true
				if w.popupURL == "" {
					w.popupURL = e.URL
				}
			})
		},
		func(e *proto.PageFileChooserOpened) {
			w.update(func() { ev := *e; w.chooser = &ev })
		},
	)
	browserWait := p.ctx.rod.Context(evCtx).EachEvent(func(e *proto.TargetTargetCreated) {
		if e.TargetInfo.OpenerID == p.rod.TargetID && e.TargetInfo.Type == proto.TargetTargetInfoTypePage {
			w.update(func() {
				w.popup = true
				w.popupTarget = e.TargetInfo.TargetID
				if w.popupURL == "" {
					w.popupURL = e.TargetInfo.URL
				}
			})
		}
	})
	go pageWait()
	go browserWait()
	return w
}

func (w *actWatch) update(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *actWatch) stop() { w.cancel() }

func (w *actWatch) fileChooser() *proto.PageFileChooserOpened {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.chooser
}

// waitFor blocks until cond (evaluated under the lock) holds, ctx ends or
// limit (when > 0) passes. It reports whether cond held.
func (w *actWatch) waitFor(ctx context.Context, limit time.Duration, cond func() bool) bool {
	var timeout <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		timeout = t.C
	}
	for {
		w.mu.Lock()
		ok, ch := cond(), w.changed
		w.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-timeout:
			return false
		}
	}
}

// settle applies the rule documented on actWatch. roundTrip asks the page
// for its settle round trip first.
func (w *actWatch) settle(ctx context.Context, res *ActResult, roundTrip, skip bool) error {
	if skip {
		return nil
	}
	start := time.Now()
	defer func() { res.SettleTime += time.Since(start) }()
	if roundTrip {
		var ok bool
		// An error here usually means the document went away: the events
		// below decide.
		_ = w.p.call(ctx, &ok, mkActSettle)
	}
	w.mu.Lock()
	nav, popup := w.requested || w.committed, w.popup
	w.mu.Unlock()
	if nav {
		if err := w.waitNavigation(ctx, res); err != nil {
			return err
		}
	}
	w.mu.Lock()
	popup = popup || w.popup
	if !nav && w.sameDoc {
		res.Navigated, res.SameDocument, res.URL = true, true, w.url
	}
	w.mu.Unlock()
	if popup {
		return w.waitPopup(ctx, res)
	}
	return nil
}

func (w *actWatch) waitNavigation(ctx context.Context, res *ActResult) error {
	// First: the navigation commits, stays in the document, or is dropped.
	// A request that never starts loading (handled in-page, blocked by a
	// dismissed beforeunload) is given up on after actPopupWait.
	if !w.waitFor(ctx, actPopupWait, func() bool { return w.started || w.committed || w.sameDoc }) {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "waiting for the navigation the action started", Err: ctx.Err()}
		}
		res.note("a navigation was requested but did not start within %s", actPopupWait)
		return nil
	}
	if !w.waitFor(ctx, 0, func() bool { return w.committed || w.sameDoc || w.stopped }) {
		return &Error{Code: CodeTimeout, Msg: "waiting for the navigation the action started", Err: ctx.Err()}
	}
	w.mu.Lock()
	committed, sameDoc, url := w.committed, w.sameDoc, w.url
	w.mu.Unlock()
	if !committed {
		if sameDoc {
			res.Navigated, res.SameDocument, res.URL = true, true, url
		} else {
			res.note("a navigation was requested but did not commit (cancelled, download or no content)")
		}
		return nil
	}
	// Then the new document's load event. A subresource that never finishes
	// (a hanging image or iframe) must not eat the step's whole budget:
	// after actLoadWait, DOMContentLoaded is enough.
	evidence := func() {
		w.mu.Lock()
		url := w.url
		w.mu.Unlock()
		res.Navigated, res.URL = true, url
		for _, r := range w.p.Requests(w.mark) {
			if r.Type == string(proto.NetworkResourceTypeDocument) && r.URL == url {
				res.Status = r.Status
			}
		}
	}
	if !w.waitFor(ctx, actLoadWait, func() bool { return w.loaded || w.stopped }) {
		if ctx.Err() == nil && w.waitFor(ctx, 0, func() bool { return w.loaded || w.stopped || w.dcl }) {
			res.note("the new document's load event did not fire within %s of its commit (a subresource is still loading): returned after DOMContentLoaded", actLoadWait)
		} else {
			evidence()
			return &Error{Code: CodeTimeout, Msg: "waiting for the new document to load", Err: ctx.Err()}
		}
	}
	evidence()
	return nil
}
