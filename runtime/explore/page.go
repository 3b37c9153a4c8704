package explore

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// resolveURL makes a path absolute against the open page (when it is an
// http(s) page) or BaseURL.
func (s *Session) resolveURL(ctx context.Context, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "/") {
		return raw, nil
	}
	base := s.baseURL
	if p := s.current(); p != nil {
		if u, err := p.URL(ctx); err == nil && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
			base = u
		}
	}
	if base == "" {
		return "", fmt.Errorf("%s is a path, but no site is open and no explore URL is configured: give an absolute URL", raw)
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("explore base URL %q: %w", base, err)
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("URL %q: %w", raw, err)
	}
	return b.ResolveReference(ref).String(), nil
}

// pageState is what the page shows, read before and after an action to
// tell what appeared and which list changed.
type pageState struct {
	Lines   []string       `json:"lines"`
	TestIDs map[string]int `json:"testids"`
	Depths  map[string]int `json:"depths"` // DOM depth of each testid's first element
	live    []string
}

const pageStateJS = `() => {
  const lines = [];
  const b = document.body;
  if (b) for (const l of (b.innerText || '').split('\n')) {
    const s = l.replace(/\s+/g, ' ').trim();
    if (s) lines.push(s);
    if (lines.length >= 5000) break;
  }
  const testids = {}, depths = {};
  for (const el of document.querySelectorAll('[data-testid]')) {
    const k = el.getAttribute('data-testid');
    testids[k] = (testids[k] || 0) + 1;
    if (!(k in depths)) {
      let d = 0;
      for (let p = el.parentElement; p; p = p.parentElement) d++;
      depths[k] = d;
    }
  }
  return { lines, testids, depths };
}`

// state reads the page's text lines, data-testid counts and live-region
// texts (the engine's snapshot signals). It is evidence, best effort: a
// page that cannot be read gives an empty state.
func readState(ctx context.Context, p *engine.Page) pageState {
	var st pageState
	if obj, err := p.Rod().Context(ctx).Eval(pageStateJS); err == nil {
		_ = obj.Value.Unmarshal(&st)
	}
	if s, err := p.Snapshot(ctx, engine.SnapshotOptions{NoHitTest: true, Max: 2000}); err == nil {
		for _, l := range s.Signals.Live {
			if t := strings.Join(strings.Fields(l.Text), " "); t != "" {
				st.live = append(st.live, t)
			}
		}
		for _, d := range s.Signals.Dialogs {
			if d.Name != "" {
				st.live = append(st.live, d.Name)
			}
		}
	}
	return st
}

// appeared lists the short texts after has and before had not: new
// live-region texts and dialogs first, then new lines of text (not after a
// navigation, where every line is new).
func appeared(before, after pageState, navigated bool, secrets []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = runtime.Clip(redact.String(s, secrets), maxAppearedLen)
		if s == "" || seen[s] || len(out) >= maxAppeared {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	had := map[string]int{}
	for _, l := range before.live {
		had[l]++
	}
	for _, l := range after.live {
		if navigated || had[l] == 0 {
			add(l)
		} else {
			had[l]--
		}
	}
	if navigated {
		return out
	}
	had = map[string]int{}
	for _, l := range before.Lines {
		had[l]++
	}
	for _, l := range after.Lines {
		if had[l] > 0 {
			had[l]--
			continue
		}
		add(l)
	}
	return out
}

// absentBefore are the parts of the appeared texts that no text the page
// showed before the action contained (its visible lines and live regions,
// case-sensitive, as text_present compares): each whole text, then each of
// its words (split on spaces, trimmed of surrounding punctuation). A text
// holding one of them was absent before, so a text_present check on it
// can fail. At most maxAbsentBefore, in order.
func absentBefore(before pageState, app []string) []string {
	had := append(append([]string(nil), before.Lines...), before.live...)
	var out []string
	seen := map[string]bool{}
	for _, s := range app {
		parts := append([]string{s}, strings.Fields(s)...)
		for j, w := range parts {
			if j > 0 {
				w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '@' && r != '#' })
			}
			if w == "" || seen[w] || len(out) >= maxAbsentBefore {
				continue
			}
			seen[w] = true
			present := false
			for _, l := range had {
				if strings.Contains(l, w) {
					present = true
					break
				}
			}
			if !present {
				out = append(out, w)
			}
		}
	}
	return out
}

// countDelta is the list whose size changed (engine.ChangedList), with
// its counts before and after.
func countDelta(before, after pageState) map[string]any {
	best, ok := engine.ChangedList(engine.TestIDCounts{Counts: before.TestIDs, Depths: before.Depths},
		engine.TestIDCounts{Counts: after.TestIDs, Depths: after.Depths})
	if !ok {
		return nil
	}
	return map[string]any{"target": map[string]string{"testid": best}, "before": before.TestIDs[best], "after": after.TestIDs[best]}
}

// rawRequest is one request a raw call saw the page send.
type rawRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Failed string `json:"failed,omitempty"`
}

// requestsSince lists the documents, XHR/fetch calls and other non-GET
// requests the page sent after mark (static assets left out), bounded.
func requestsSince(p *engine.Page, mark int64, secrets []string) []rawRequest {
	var out []rawRequest
	for _, r := range p.Requests(mark) {
		switch {
		case r.Type == "Document", r.Type == "XHR", r.Type == "Fetch":
		case r.Method != "GET" && r.Method != "HEAD" && r.Method != "OPTIONS":
		default:
			continue
		}
		if len(out) == maxRawRequests {
			break
		}
		rr := rawRequest{Method: r.Method, URL: redact.String(r.URL, secrets), Status: r.Status, Failed: r.Failed}
		if !r.Done && rr.Failed == "" {
			rr.Failed = "pending"
		}
		out = append(out, rr)
	}
	return out
}

// pageCall runs one page tool on p.
func (s *Session) pageCall(ctx context.Context, x *runtime.Exec, p *engine.Page, name string, a rawArgs) (map[string]any, error) {
	if u, err := p.URL(ctx); err == nil {
		x.Annotate("url_before", u)
	}
	defer func() {
		if u, err := p.URL(context.WithoutCancel(ctx)); err == nil {
			x.Annotate("url_after", u)
		}
	}()
	if err := s.offSite(ctx, p); err != nil {
		return nil, x.FailStep(ctx, runtime.StepRecord{Path: name, Kind: strings.TrimPrefix(name, "page_")}, err)
	}
	switch name {
	case Snapshot:
		return s.snapshot(ctx, x, p)
	case Extract:
		return s.extract(ctx, x, p, a)
	}
	step := engine.Step{Target: a.Target}
	switch name {
	case Goto:
		u, err := s.resolveURL(ctx, a.URL)
		if err != nil {
			return nil, &runtime.CallError{Code: runtime.CodeInvalidArguments, Message: err.Error(), Args: []runtime.ArgError{{Pointer: "/url", Message: err.Error()}}}
		}
		if err := s.policy(ctx).Check(u); err != nil {
			return nil, x.FailStep(ctx, runtime.StepRecord{Path: name, Kind: string(vocab.ActGoto)}, err)
		}
		step.Action, step.URL = vocab.ActGoto, u
	case Click:
		step.Action = vocab.ActClick
	case Fill:
		v, _ := a.Value.(string)
		step.Action, step.Value, step.Sensitive = vocab.ActFill, v, s.isSecret(v)
	case Select:
		step.Action, step.Options = vocab.ActSelect, []string{a.Option}
	case Check:
		step.Action = vocab.ActCheck
		if a.Checked != nil && !*a.Checked {
			step.Action = vocab.ActUncheck
		}
	case Press:
		step.Action, step.Key = vocab.ActPress, a.Key
	}
	if why := s.consequential(ctx, p, name, a); why != "" {
		if err := s.approve(ctx, x, name, a, why); err != nil {
			return nil, err
		}
	}
	before := readState(ctx, p)
	mark := p.RequestMark()
	sr, err := p.Do(ctx, step)
	if err == nil {
		// Let the requests the action started finish, and their responses
		// render, before reading what it did; a page that never settles is
		// read as it is.
		wctx, cancel := context.WithTimeout(ctx, rawSettleWait)
		_ = p.WaitReady(wctx)
		cancel()
	}
	secrets := s.secretList()
	after := readState(context.WithoutCancel(ctx), p)
	navigated := step.Action == vocab.ActGoto || sr != nil && sr.Act != nil && sr.Act.Navigated && !sr.Act.SameDocument
	reqs := requestsSince(p, mark, secrets)
	app := appeared(before, after, navigated, secrets)
	rec := runtime.StepRecord{Path: name, Kind: string(step.Action), Status: "passed"}
	if sr != nil {
		rec.Checks, rec.Detail, rec.Duration = sr.Checks, sr.Detail(), sr.Duration
	}
	if rec.Detail == nil {
		rec.Detail = map[string]any{}
	}
	if len(reqs) > 0 {
		rec.Detail["requests"] = reqs
	}
	if len(app) > 0 {
		rec.Detail["appeared"] = app
	}
	if err != nil {
		return nil, x.FailStep(ctx, rec, err)
	}
	if serr := s.offSite(ctx, p); serr != nil {
		delete(rec.Detail, "appeared") // what an off-site page shows is not evidence to keep
		return nil, x.FailStep(ctx, rec, serr)
	}
	x.Record(rec)
	res := map[string]any{"url": sr.URLAfter}
	if u, uerr := p.URL(ctx); uerr == nil {
		res["url"] = u
	}
	if act := sr.Act; act != nil {
		switch step.Action {
		case vocab.ActFill:
			res["value"] = act.ValueAfter
		case vocab.ActSelect:
			res["value"] = strings.Join(act.SelectedAfter, ", ")
		case vocab.ActCheck, vocab.ActUncheck:
			res["value"] = map[string]string{"true": "checked", "false": "unchecked", "mixed": "mixed"}[act.CheckedAfter]
		}
		if act.PopupURL != "" {
			res["popup_url"] = act.PopupURL
		}
	}
	if reqs == nil {
		reqs = []rawRequest{}
	}
	res["requests"] = reqs
	if app == nil {
		app = []string{}
	}
	res["appeared"] = app
	// What the gate needs to prove a suggested check was false before the
	// action (docs/explore.md): what of the appeared texts the page did not
	// show before, and the value a field had.
	ab := absentBefore(before, app)
	if ab == nil {
		ab = []string{}
	}
	res["absent_before"] = ab
	if act := sr.Act; act != nil && !step.Sensitive {
		switch step.Action {
		case vocab.ActFill:
			res["value_before"] = act.ValueBefore
		case vocab.ActSelect:
			res["value_before"] = strings.Join(act.SelectedBefore, ", ")
		case vocab.ActCheck, vocab.ActUncheck:
			res["value_before"] = map[string]string{"true": "checked", "false": "unchecked", "mixed": "mixed"}[act.CheckedBefore]
		}
	}
	if step.Action == vocab.ActClick {
		if cd := countDelta(before, after); cd != nil {
			res["count_delta"] = cd
		}
	}
	return res, nil
}

// extract reads text, a value, an attribute, every match or a count.
func (s *Session) extract(ctx context.Context, x *runtime.Exec, p *engine.Page, a rawArgs) (map[string]any, error) {
	start := time.Now()
	rec := runtime.StepRecord{Path: Extract, Kind: "extract", Status: "passed"}
	f := engine.Field{Text: true}
	if a.Attr != "" {
		f = engine.Field{Attr: a.Attr}
	} else if v, _ := a.Value.(bool); v {
		f = engine.Field{Value: true}
	}
	t := *a.Target
	res := map[string]any{}
	if u, err := p.URL(ctx); err == nil {
		res["url"] = u
	}
	secrets := s.secretList()
	switch {
	case a.Count:
		n, err := p.Count(ctx, t)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, x.FailStep(ctx, rec, err)
		}
		res["count"] = n
	case a.All:
		rows, err := p.ExtractRows(ctx, t, map[string]engine.Field{"v": f}, maxExtractAll)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, x.FailStep(ctx, rec, err)
		}
		values := make([]any, 0, len(rows.Rows))
		for _, r := range rows.Rows {
			if v := r["v"]; v != nil {
				values = append(values, redact.String(*v, secrets))
			} else {
				values = append(values, nil)
			}
		}
		res["values"], res["total"] = values, rows.Total
	default:
		e, err := p.Extract(ctx, t, f)
		rec.Duration = time.Since(start)
		if err != nil {
			return nil, x.FailStep(ctx, rec, err)
		}
		res["value"] = redact.String(e.Value, secrets)
		rec.Detail = map[string]any{"element": e.Element}
	}
	x.Record(rec)
	return res, nil
}
