// Package farm is a browser pool over remote Chromium endpoints (a
// browser farm): N CDP endpoints, each with a slot limit, handing out one
// page per macro call in a fresh isolated browser context, as
// runtime.ContextPages does for one local browser.
//
// Farm.Pages is a runtime.PageSource. It takes the live endpoint with the
// fewest pages in use, connects to it on first use (one connection per
// endpoint, reused) and waits, as long as its context allows, when every
// live endpoint is full. It never launches or downloads a browser.
//
// An endpoint that cannot be connected to, cannot open a context or page,
// drops its connection or stops answering the health ping is marked down
// for a backoff that doubles up to a cap; the next call after the backoff
// probes it again. While every endpoint is down Pages fails at once with
// ErrNoEndpoint (a *Error with CodeEndpointDown and RetryIn), so a worker
// naks the job with a delay rather than failing it. A call whose
// endpoint's connection died while its page was out fails with the
// engine's error; Track tells the worker so, and the worker decides what
// that means for a macro that may already have acted.
package farm
