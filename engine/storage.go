package engine

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/identity"
)

// Restore puts st into the context before its first page loads: every
// cookie (HttpOnly and Secure ones too, through CDP, not document.cookie)
// and each origin's localStorage. The user's own browser (a shared
// context) is never written to.
func (c *Context) Restore(ctx context.Context, st identity.State) error {
	if c.shared {
		return &Error{Code: CodeBrowser, Msg: "the user's own browser keeps its own cookies and storage: nothing is restored into it"}
	}
	if len(st.Cookies) > 0 {
		params := make([]*proto.NetworkCookieParam, 0, len(st.Cookies))
		for _, ck := range st.Cookies {
			p := &proto.NetworkCookieParam{Name: ck.Name, Value: ck.Value, Domain: ck.Domain, Path: ck.Path,
				Secure: ck.Secure, HTTPOnly: ck.HTTPOnly, SameSite: proto.NetworkCookieSameSite(ck.SameSite)}
			if !ck.Session() {
				p.Expires = proto.TimeSinceEpoch(ck.Expires)
			}
			params = append(params, p)
		}
		if err := (proto.StorageSetCookies{Cookies: params, BrowserContextID: c.rod.BrowserContextID}).Call(c.rod.Context(ctx)); err != nil {
			return &Error{Code: CodeBrowser, Msg: "restore cookies", Err: err}
		}
	}
	for _, o := range st.Origins {
		if len(o.LocalStorage) == 0 {
			continue
		}
		items, _ := json.Marshal(o.LocalStorage)
		err := c.atOrigin(ctx, o.Origin, func(p *rod.Page) error {
			_, err := p.Eval(`(items) => { for (const it of items) localStorage.setItem(it.name, it.value); }`, json.RawMessage(items))
			return err
		})
		if err != nil {
			return &Error{Code: CodeBrowser, Msg: "restore the localStorage of " + o.Origin, Err: err}
		}
		c.noteOrigin(o.Origin)
	}
	return nil
}

// StorageState reads the context's cookies and the localStorage of the
// given origins plus every origin its pages loaded documents from.
func (c *Context) StorageState(ctx context.Context, origins []string) (identity.State, error) {
	st := identity.State{Cookies: []identity.Cookie{}, Origins: []identity.Origin{}}
	res, err := (proto.StorageGetCookies{BrowserContextID: c.rod.BrowserContextID}).Call(c.rod.Context(ctx))
	if err != nil {
		return st, &Error{Code: CodeBrowser, Msg: "read cookies", Err: err}
	}
	for _, ck := range res.Cookies {
		exp := float64(ck.Expires)
		if ck.Session {
			exp = -1
		}
		st.Cookies = append(st.Cookies, identity.Cookie{Name: ck.Name, Value: ck.Value, Domain: ck.Domain, Path: ck.Path, Expires: exp,
			HTTPOnly: ck.HTTPOnly, Secure: ck.Secure, SameSite: string(ck.SameSite)})
	}
	all := map[string]bool{}
	for _, o := range append(origins, c.Origins()...) {
		if storable(o) {
			all[o] = true
		}
	}
	open := c.openOrigins(ctx)
	for o := range all {
		read := func(p *rod.Page) error {
			v, err := p.Eval(`() => Object.keys(localStorage).map(k => ({name: k, value: localStorage.getItem(k)}))`)
			if err != nil {
				return err
			}
			var items []identity.StorageItem
			if err := json.Unmarshal([]byte(v.Value.JSON("", "")), &items); err != nil {
				return err
			}
			st.Origins = append(st.Origins, identity.Origin{Origin: o, LocalStorage: items})
			return nil
		}
		var err error
		if p := open[o]; p != nil {
			err = read(p.Context(ctx))
		} else {
			err = c.atOrigin(ctx, o, read)
		}
		if err != nil {
			return st, &Error{Code: CodeBrowser, Msg: "read the localStorage of " + o, Err: err}
		}
	}
	for i := 0; i < len(st.Origins); i++ {
		if len(st.Origins[i].LocalStorage) == 0 { // an origin with nothing stored is not kept
			st.Origins = append(st.Origins[:i], st.Origins[i+1:]...)
			i--
		}
	}
	st.Sort()
	return st, nil
}

// Origins returns the origins the context's pages have loaded documents
// from (and those Restore wrote to), sorted.
func (c *Context) Origins() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.origins))
	for o := range c.origins {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

// Shared reports whether the context is the browser's default context
// (Options.UserContext): the user's own cookies and logins, which Close
// leaves alone.
func (c *Context) Shared() bool { return c.shared }

// noteOrigin records an origin a page of the context loaded.
func (c *Context) noteOrigin(o string) {
	if !storable(o) {
		return
	}
	c.mu.Lock()
	if c.origins == nil {
		c.origins = map[string]bool{}
	}
	c.origins[o] = true
	c.mu.Unlock()
}

// openOrigins maps each origin a page of the context shows now to that
// page.
func (c *Context) openOrigins(ctx context.Context) map[string]*rod.Page {
	c.mu.Lock()
	pages := make([]*Page, 0, len(c.pages))
	for p := range c.pages {
		pages = append(pages, p)
	}
	c.mu.Unlock()
	out := map[string]*rod.Page{}
	for _, p := range pages {
		if u, err := p.URL(ctx); err == nil {
			if o := originOf(u); storable(o) {
				out[o] = p.rod
			}
		}
	}
	return out
}

// atOrigin runs fn in a temporary page of the context showing an empty
// document of origin: every request the page makes is answered here
// (Fetch interception), so the site never sees it.
func (c *Context) atOrigin(ctx context.Context, origin string, fn func(*rod.Page) error) error {
	rp, err := c.rod.Context(ctx).Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		return err
	}
	defer func() { _ = rp.Context(context.WithoutCancel(ctx)).Close() }()
	rp = rp.Context(ctx)
	evCtx, stop := context.WithCancel(ctx)
	defer stop()
	if err := (proto.FetchEnable{Patterns: []*proto.FetchRequestPattern{{URLPattern: "*"}}}).Call(rp); err != nil {
		return err
	}
	go rp.Context(evCtx).EachEvent(func(e *proto.FetchRequestPaused) {
		_ = proto.FetchFulfillRequest{RequestID: e.RequestID, ResponseCode: 200,
			ResponseHeaders: []*proto.FetchHeaderEntry{{Name: "Content-Type", Value: "text/html"}},
			Body:            blankDocument}.Call(rp.Context(evCtx))
	})()
	if err := rp.Navigate(strings.TrimSuffix(origin, "/") + "/"); err != nil {
		return err
	}
	if err := rp.WaitLoad(); err != nil {
		return err
	}
	return fn(rp)
}

// blankDocument answers the temporary page's requests. It names an inline
// icon: Chromium fetches a page's favicon from the browser process, past
// the page's Fetch interception, and that request would reach the site.
var blankDocument = []byte(`<!doctype html><link rel="icon" href="data:,"><title></title>`)

// originOf is scheme://host[:port] of a URL ("" when it has none).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// storable reports whether an origin has a localStorage we keep.
func storable(o string) bool { return originOf(o) == o && o != "" }
