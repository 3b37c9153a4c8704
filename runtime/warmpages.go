package runtime

import (
	"context"
	"sync"

	"github.com/macrokit/macrokit-go/engine"
)

// WarmPages is a PageSource that keeps up to n fresh pages, each in its
// own new isolated context, opened ahead of the calls that take them: a
// batch's next row starts on a page that was made while the previous row
// ran. Every page is handed out once and never reused, so calls stay as
// isolated as with ContextPages; closing a page's context after its call
// happens in the background. Close ends the spares.
type WarmPages struct {
	open  PageSource
	n     int
	mu    sync.Mutex
	ready []warmPage
	busy  int // pages being opened ahead
	done  bool
	wg    sync.WaitGroup
}

type warmPage struct {
	p       *engine.Page
	release func()
}

// NewWarmPages keeps n pages of open ready (n < 1 means 1).
func NewWarmPages(open PageSource, n int) *WarmPages {
	if n < 1 {
		n = 1
	}
	return &WarmPages{open: open, n: n}
}

// Pages is the PageSource: a ready page when there is one, else one
// opened now; either way the next one starts opening.
func (w *WarmPages) Pages(ctx context.Context) (*engine.Page, func(), error) {
	w.mu.Lock()
	var got *warmPage
	if len(w.ready) > 0 {
		got = &w.ready[0]
		w.ready = w.ready[1:]
	}
	w.mu.Unlock()
	w.fill()
	if got != nil {
		return got.p, w.background(got.release), nil
	}
	p, rel, err := w.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return p, w.background(rel), nil
}

// background makes a release return at once: the context closes while
// the next call runs.
func (w *WarmPages) background(rel func()) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			if w.done {
				w.mu.Unlock()
				rel() // after Close: nobody waits for it
				return
			}
			w.wg.Add(1)
			w.mu.Unlock()
			go func() {
				defer w.wg.Done()
				rel()
			}()
		})
	}
}

// fill starts opening pages until n are ready or on the way. A page that
// fails to open is not retried here: the next call opens its own and
// reports the error.
func (w *WarmPages) fill() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.done && len(w.ready)+w.busy < w.n {
		w.busy++
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			// A spare outlives any one call's context; Close ends it.
			p, rel, err := w.open(context.Background())
			w.mu.Lock()
			w.busy--
			if err == nil && w.done {
				w.mu.Unlock()
				rel()
				return
			}
			if err == nil {
				w.ready = append(w.ready, warmPage{p, rel})
			}
			w.mu.Unlock()
		}()
	}
}

// Close releases the spare pages and waits for every release and opening
// in flight. Pages handed out before still close when their calls
// release them.
func (w *WarmPages) Close() {
	w.mu.Lock()
	w.done = true
	spare := w.ready
	w.ready = nil
	w.mu.Unlock()
	for _, s := range spare {
		s.release()
	}
	w.wg.Wait()
}
