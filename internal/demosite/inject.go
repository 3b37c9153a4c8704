package demosite

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// inject is a set of fault-injection modes.
type inject uint8

// The fault-injection modes. Their wire names are in injectNames.
const (
	// injectSlow: the API waits 1–2 s before answering; pages hold back
	// their late elements (data-late) for as long.
	injectSlow inject = 1 << iota
	// injectFlaky: pages swallow the first click on each action button
	// (data-action). The API is unaffected.
	injectFlaky
	// injectFakeSuccess: writes are validated and answered as if they
	// succeeded but nothing is stored; pages show their success toast and do
	// not update the list.
	injectFakeSuccess
	// injectError500: writes answer 500 without being carried out; pages
	// show their success toast anyway (a buggy UI).
	injectError500
)

var injectNames = []struct {
	mode inject
	name string
}{
	{injectSlow, "slow"},
	{injectFlaky, "flaky"},
	{injectFakeSuccess, "fakeSuccess"},
	{injectError500, "error500"},
}

// parseInject reads a list of mode names separated by commas, spaces or
// plus signs, case-insensitively. Unknown names are ignored.
func parseInject(v string) inject {
	var m inject
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '+' }) {
		for _, n := range injectNames {
			if strings.EqualFold(f, n.name) {
				m |= n.mode
			}
		}
	}
	return m
}

func (m inject) has(mode inject) bool { return m&mode != 0 }

// String returns the modes' wire names separated by spaces.
func (m inject) String() string {
	var out []string
	for _, n := range injectNames {
		if m.has(n.mode) {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, " ")
}

// requestInject returns the modes an API request asks for: the X-Inject
// header and the inject query parameter, combined.
func requestInject(r *http.Request) inject {
	return parseInject(r.Header.Get(InjectHeader)) | parseInject(r.URL.Query().Get("inject"))
}

type injectKey struct{}

// injectOf returns the modes the api wrapper stored in the request context.
func injectOf(r *http.Request) inject {
	m, _ := r.Context().Value(injectKey{}).(inject)
	return m
}

// api wraps an API handler: it applies the request's fault-injection modes
// (delay, injected 500) and marks the response as uncacheable JSON.
func (s *Site) api(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		modes := requestInject(r) | s.siteInject() | s.bodyInject(r)
		exempt := r.URL.Path == "/api/health"
		auth := r.URL.Path == "/api/login" || r.URL.Path == "/api/logout"
		if modes.has(injectSlow) && !exempt {
			s.mu.Lock()
			d := s.slowDelayLocked()
			s.mu.Unlock()
			if !sleep(r.Context(), d) {
				return // the client gave up
			}
		}
		if modes.has(injectError500) && isWrite(r.Method) && !exempt && !auth {
			writeError(w, http.StatusInternalServerError, "internal", "Internal server error (injected by inject=error500); nothing was saved.", nil)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), injectKey{}, modes)))
	})
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// sleep waits for d or until ctx is done; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// siteInject returns the site-wide fault modes.
func (s *Site) siteInject() inject {
	s.mu.Lock()
	defer s.mu.Unlock()
	return parseInject(s.inject)
}

// SetInject replaces the site-wide fault modes (Options.Inject) at run
// time; "" turns them off.
func (s *Site) SetInject(modes string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inject = modes
}
