package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/farm"
	"github.com/macrokit/macrokit-go/runtime/worker"
	"github.com/urfave/cli/v2"
)

// workerBrowsers is where a worker's pages come from — this machine's
// Chromium, or a farm of remote CDP endpoints — and what the handler, the
// metrics and /healthz need to know about them.
type workerBrowsers struct {
	pages        runtime.PageSource
	inUse, slots func() int
	// ready, lost and track are the handler's hooks (nil for a local
	// browser, which is launched on demand and cannot go away unnoticed).
	ready func(context.Context) error
	lost  func(error) bool
	track func(context.Context) (context.Context, func() bool)
	check *worker.Check
	close func()
}

// newWorkerBrowsers opens o's browsers: a farm over o.CDP when it names
// endpoints, else a local Chromium with o.Concurrency warm pages.
func newWorkerBrowsers(o WorkerOptions) (*workerBrowsers, error) {
	if len(o.CDP) == 0 {
		return localBrowsers(o), nil
	}
	if o.Browser.UserContext {
		return nil, Usagef("worker: --cdp-user-context does not apply to a worker (every job gets its own context on the farm)")
	}
	per := o.PerBrowser
	if per == 0 {
		per = (o.Concurrency + len(o.CDP) - 1) / len(o.CDP)
	}
	if per < 1 {
		return nil, Usagef("--per-browser must be at least 1")
	}
	if slots := per * len(o.CDP); o.Concurrency > slots {
		return nil, Usagef("--concurrency %d is more than the farm's %d browser slots (%d endpoints × --per-browser %d): the worker would hold jobs it has no browser for", o.Concurrency, slots, len(o.CDP), per)
	}
	bo := o.Browser
	bo.ControlURL = ""
	f, err := farm.New(o.CDP, per, farm.WithBrowserOptions(bo))
	if err != nil {
		return nil, Usagef("--cdp: %v", err)
	}
	return &workerBrowsers{
		pages: f.Pages,
		inUse: f.InUse,
		slots: f.Slots,
		ready: func(ctx context.Context) error { return farmReady(ctx, f) },
		lost:  func(err error) bool { return errors.Is(err, farm.ErrNoEndpoint) },
		track: func(ctx context.Context) (context.Context, func() bool) {
			ctx, t := farm.Track(ctx)
			return ctx, func() bool { _, lost := t.Lost(); return lost }
		},
		check: &worker.Check{Name: "browsers", Check: func() error { return farmUp(f.Endpoints()) }},
		close: func() { _ = f.Close() },
	}, nil
}

// farmReady says whether a page can be had: some endpoint is up, or,
// when every one is down, a page opened now (the probe a down endpoint
// due for one gets) says so. Not ready is the farm's ErrNoEndpoint, whose
// RetryIn is when the next probe is due. The probe is the worker's own,
// not a job's: a job that found no browser would spend a delivery.
func farmReady(ctx context.Context, f *farm.Farm) error {
	for _, e := range f.Endpoints() {
		if e.Up {
			return nil
		}
	}
	_, release, err := f.Pages(ctx)
	if err != nil {
		return err
	}
	release()
	return nil
}

// farmUp is /healthz's view: healthy while some endpoint is up. An
// endpoint that is down but due for its probe counts as down here (it is
// ready for a job to try it, not known to work).
func farmUp(eps []farm.EndpointStatus) error {
	for _, e := range eps {
		if e.Up {
			return nil
		}
	}
	return fmt.Errorf("every browser endpoint is down (%d)", len(eps))
}

// localBrowsers is this machine's Chromium, launched on the first job.
func localBrowsers(o WorkerOptions) *workerBrowsers {
	lb := NewLazyBrowser(o.Browser)
	warm := runtime.NewWarmPages(lb.Pages, o.Concurrency)
	var held atomic.Int64
	return &workerBrowsers{
		pages: func(ctx context.Context) (*engine.Page, func(), error) {
			p, rel, err := warm.Pages(ctx)
			if err != nil {
				return nil, nil, err
			}
			held.Add(1)
			var once sync.Once
			return p, func() { once.Do(func() { rel(); held.Add(-1) }) }, nil
		},
		inUse: func() int { return int(held.Load()) },
		slots: func() int { return o.Concurrency },
		close: func() { warm.Close(); lb.Close() },
	}
}

// workerBrowserFlags are BrowserFlags with --cdp repeatable (a farm of
// remote browsers) and --per-browser; --cdp-user-context does not apply.
func workerBrowserFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range BrowserFlags() {
		switch f.Names()[0] {
		case "cdp", "cdp-user-context":
			continue
		}
		out = append(out, f)
	}
	return append(out,
		&cli.StringSliceFlag{Name: "cdp", Usage: "run jobs on remote browsers instead of a local Chromium: a CDP URL (ws://host:9222/devtools/browser/<id> or http://host:9222), repeatable; a dead one's jobs go back to the queue (docs/farm.md)"},
		&cli.IntFlag{Name: "per-browser", Usage: "with --cdp: pages open at once on each remote browser (default: --concurrency spread over them)"},
	)
}
