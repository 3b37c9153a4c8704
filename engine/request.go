package engine

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// urlMatcher compiles a substring or /regex/flags pattern (Go regexp syntax;
// flags i, m, s and U are honoured).
func urlMatcher(pat string) (func(string) bool, error) {
	if len(pat) >= 3 && pat[0] == '/' {
		if j := strings.LastIndexByte(pat, '/'); j > 0 {
			body, flags := pat[1:j], pat[j+1:]
			if strings.Trim(flags, "gimsuyU") == "" {
				var gf string
				for _, f := range flags {
					if strings.ContainsRune("imsU", f) && !strings.ContainsRune(gf, f) {
						gf += string(f)
					}
				}
				if gf != "" {
					body = "(?" + gf + ")" + body
				}
				re, err := regexp.Compile(body)
				if err != nil {
					return nil, err
				}
				return re.MatchString, nil
			}
		}
	}
	return func(s string) bool { return strings.Contains(s, pat) }, nil
}

func requestEvidence(r Request) map[string]any {
	m := map[string]any{"seq": r.Seq, "method": r.Method, "url": r.URL, "type": r.Type, "done": r.Done}
	if r.Status != 0 {
		m["status"] = r.Status
	}
	if r.Failed != "" {
		m["failed"] = r.Failed
	}
	if r.Done && !r.Finished.IsZero() {
		m["duration_ms"] = r.Finished.Sub(r.Started).Milliseconds()
	}
	return m
}

func statusOK(got, want int) bool {
	if want != 0 {
		return got == want
	}
	return got >= 200 && got < 300
}

// reqOutcome is the state of one matching request, following redirects:
// a redirect hop reuses the request id, so the hop's final answer is the last
// request with the same id.
type reqOutcome struct {
	first  Request   // the request that matched
	final  Request   // the last hop
	chain  []Request // every hop from first to final
	answer bool      // the server answered (status received, or failed)
	ok     bool
}

func outcomes(reqs []Request, match func(string) bool, method string, want int) []reqOutcome {
	var outs []reqOutcome
	for k, r := range reqs {
		if !match(r.URL) || (method != "" && !strings.EqualFold(r.Method, method)) {
			continue
		}
		o := reqOutcome{first: r, final: r, chain: []Request{r}}
		// A check for an explicit redirect status judges this hop itself.
		if !(want >= 300 && want < 400) {
			for _, later := range reqs[k+1:] {
				if later.ID == r.ID {
					o.final = later
					o.chain = append(o.chain, later)
				}
			}
		}
		f := o.final
		switch {
		case f.Failed != "":
			o.answer = true
		case f.Status != 0:
			o.answer = true
			o.ok = statusOK(f.Status, want)
		}
		outs = append(outs, o)
	}
	return outs
}

func (o reqOutcome) describe() string {
	f := o.final
	s := o.first.Method + " " + o.first.URL
	if len(o.chain) > 1 {
		s += " -> " + f.URL
	}
	switch {
	case f.Failed != "":
		return s + " failed: " + f.Failed
	case f.Status != 0:
		return s + " -> " + itoa(f.Status)
	default:
		return s + " (in flight)"
	}
}

func (o reqOutcome) evidence() map[string]any {
	ev := map[string]any{"request": requestEvidence(o.first)}
	if len(o.chain) > 1 {
		hops := make([]any, len(o.chain))
		for i, r := range o.chain {
			hops[i] = requestEvidence(r)
		}
		ev["redirects"] = hops
	}
	return ev
}

// checkRequest waits for a request matching c that fired after the
// baseline's request mark to be answered with the wanted status. It settles
// passed on the first such answer; failed as soon as every matching request
// has been answered otherwise (the toast may say "saved", the server said
// 500), or at the timeout with the in-flight request or the list of requests
// that did fire as evidence.
func (p *Page) checkRequest(ctx context.Context, c Condition, base *Baseline, start time.Time) CheckResult {
	if c.URL == "" {
		return unverifiable(c, start, "request_succeeded needs a url pattern")
	}
	match, err := urlMatcher(c.URL)
	if err != nil {
		return unverifiable(c, start, "invalid url pattern %q: %v", c.URL, err)
	}
	if c.Status != 0 && (c.Status < 100 || c.Status > 599) {
		return unverifiable(c, start, "invalid status %d", c.Status)
	}
	var mark int64
	if base != nil {
		mark = base.Mark
	}
	method := strings.ToUpper(c.Method)
	want := "2xx"
	if c.Status != 0 {
		want = itoa(c.Status)
	}
	expected := strings.TrimSpace(method+" "+c.URL) + " -> " + want
	res := func(st CheckStatus, actual string, ev map[string]any) CheckResult {
		ev["mark"] = mark
		return CheckResult{Kind: c.Kind, Status: st, Expected: expected, Actual: actual, Evidence: ev, Duration: time.Since(start)}
	}
	timer := time.NewTimer(time.Until(start.Add(timeoutOf(c))))
	defer timer.Stop()
	timedOut := false
	for {
		_, changed := p.NetworkChanged() // before reading, so no event is missed
		reqs := p.Requests(mark)
		outs := outcomes(reqs, match, method, c.Status)
		var inflight, bad *reqOutcome
		for k := range outs {
			o := &outs[k]
			switch {
			case o.ok:
				ev := o.evidence()
				ev["matched"] = len(outs)
				return res(Passed, o.describe(), ev)
			case !o.answer:
				if inflight == nil {
					inflight = o
				}
			default:
				bad = o
			}
		}
		if bad != nil && inflight == nil {
			ev := bad.evidence()
			ev["matched"] = len(outs)
			if len(outs) > 1 {
				all := make([]any, len(outs))
				for k, o := range outs {
					all[k] = o.describe()
				}
				ev["matching"] = all
			}
			return res(Failed, bad.describe(), ev)
		}
		if timedOut {
			if inflight != nil {
				ev := inflight.evidence()
				ev["in_flight"] = true
				actual := inflight.describe() + " at timeout"
				if stale(inflight.final, p.liveDocuments(ctx)) {
					// Chromium reports no end for it: its document is gone.
					ev["document_replaced"] = true
					actual = inflight.describe() + ": abandoned, the page that made it was replaced"
				}
				return res(Failed, actual, ev)
			}
			fired := make([]any, 0, min(len(reqs), 30))
			for k, r := range reqs {
				if k == 30 {
					break
				}
				fired = append(fired, r.Method+" "+r.URL+" "+statusText(r))
			}
			ev := map[string]any{"fired": fired, "fired_count": len(reqs)}
			return res(Failed, "no matching request fired ("+itoa(len(reqs))+" other requests)", ev)
		}
		select {
		case <-changed:
		case <-timer.C:
			timedOut = true // one last look at the log
		case <-ctx.Done():
			r := unverifiable(c, start, "not settled before the context ended: %v", ctx.Err())
			r.Expected = expected
			return r
		}
	}
}

func statusText(r Request) string {
	switch {
	case r.Failed != "":
		return "failed: " + r.Failed
	case r.Status != 0:
		return itoa(r.Status)
	case !r.Done:
		return "in flight"
	default:
		return "done"
	}
}
